// The Team view: the period it asks for, the totals and shares it shows, the tables beside its
// charts, an empty period, a refusal in words, names from the wire as text only, and the words in
// Japanese. jsdom has no canvas: the charts are not drawn, and their tables are shown open instead
// (TeamView.charts.test.ts draws them with a stand-in for Chart.js).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { emptyTeamStats, FakeBackend, makeTeamStats } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import TeamView from './TeamView.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

async function render(backend: FakeBackend) {
  const { target } = mountInBody(TeamView, { props: {}, context: backendContext(backend, { name: 'alice', role: 'operator', kind: 'token' }) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll(`[data-testid="${id}"]`)] as HTMLElement[];
  const period = (days: number) => target.querySelector(`[data-testid="team-period"][data-days="${days}"]`) as HTMLButtonElement;
  /** Each body row of a table as its cells' text. */
  const rows = (id: string) => all(id).map((r) => [...r.children].map((c) => text(c)));
  return { target, tid, all, period, rows };
}

const asked = (backend: FakeBackend) => backend.calls.filter((c) => c.method === 'stats').map((c) => c.args[0]);

beforeEach(() => {
  // jsdom's canvas has no context (and says so on the console each time it is asked).
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

afterEach(() => {
  i18n.set('system');
  flushSync();
  localStorage.clear();
  vi.restoreAllMocks();
});

describe('TeamView', () => {
  it('asks for the last 7 days first, and again for 30 days when that is chosen', async () => {
    const backend = new FakeBackend();
    const { period } = await render(backend);
    expect(asked(backend)).toEqual([7]);
    expect(period(7).getAttribute('aria-pressed')).toBe('true');
    expect(period(1).getAttribute('aria-pressed')).toBe('false');
    expect([1, 7, 30].map((d) => text(period(d)))).toEqual(['Last 24 hours', 'Last 7 days', 'Last 30 days']);
    period(30).click();
    await settle();
    expect(asked(backend)).toEqual([7, 30]);
    expect(period(30).getAttribute('aria-pressed')).toBe('true');
    expect(period(7).getAttribute('aria-pressed')).toBe('false');
    // The period shown already is not asked again; Refresh asks for it.
    period(30).click();
    await settle();
    expect(asked(backend)).toEqual([7, 30]);
    (document.querySelector('[data-testid="team-refresh"]') as HTMLButtonElement).click();
    await settle();
    expect(asked(backend)).toEqual([7, 30, 30]);
  });

  it('shows the totals with the shares declined and expired of all decided calls', async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend);
    expect(text(tid('team-decided'))).toBe('18');
    expect(text(tid('team-declined'))).toBe('3');
    expect(text(tid('team-declined-share'))).toBe('16.7% of decided');
    expect(text(tid('team-expired'))).toBe('1');
    expect(text(tid('team-expired-share'))).toBe('5.6% of decided');
    expect(text(tid('team-totals'))).toContain('Decided');
    expect(tid('team-range')!.querySelectorAll('time')).toHaveLength(2);
    expect(tid('team-range')!.querySelector('time')!.getAttribute('datetime')).toBe('2026-11-24T00:00:00.000000Z');
    expect(tid('team-empty')).toBeNull();
  });

  it('puts the numbers of each chart in a table: tools, operators and pending hours, one row each', async () => {
    const backend = new FakeBackend();
    backend.teamStats = makeTeamStats({
      byTool: [
        { tool: 'delete_record', decided: 9, p50Secs: 41.5, p90Secs: 300, declined: 2, expired: 1 },
        { tool: 'send_email', decided: 1234, p50Secs: 90, p90Secs: 7200, declined: 0, expired: 0 },
      ],
    });
    const { tid, rows, target } = await render(backend);
    const headers = (id: string) => [...tid(id)!.querySelectorAll('thead th')].map((th) => text(th));
    expect(headers('team-tools-table')).toEqual(['Tool', 'Decided', 'p50', 'p90', 'Declined', 'Expired']);
    expect(rows('team-tool-row')).toEqual([
      ['delete_record', '9', '42 s', '5 min', '2', '1'],
      ['send_email', '1,234', '1 min 30 s', '2 h', '0', '0'],
    ]);
    expect(headers('team-operators-table')).toEqual(['Operator', 'Decided', 'p50', 'p90']);
    expect(rows('team-operator-row')).toEqual([['alice (web)', '7', '20 s', '1 min 35 s']]);
    expect(rows('team-pending-row').map((r) => r[1])).toEqual(['1', '4']);
    expect(tid('team-pending-table')!.querySelector('tbody time')!.getAttribute('datetime')).toBe('2026-11-30T17:00:00.000000Z');
    // Each table names its chart, and the row headers are the names.
    expect(text(tid('team-tools-table')!.querySelector('caption'))).toBe('Time to decision per tool');
    expect(text(tid('team-operators-table')!.querySelector('caption'))).toBe('Time to decision per operator');
    expect(text(tid('team-pending-table')!.querySelector('caption'))).toBe('Pending over time');
    expect(tid('team-tool-row')!.querySelector('th')!.getAttribute('scope')).toBe('row');
    // No canvas to draw on: no empty chart, and the tables are open.
    for (const id of ['team-tools', 'team-operators', 'team-pending']) {
      expect(tid(id)!.dataset.drawn, id).toBe('false');
      expect((tid(`${id}-numbers`) as HTMLDetailsElement).open, id).toBe(true);
      expect(tid(`${id}-canvas`)!.closest('[hidden]'), id).not.toBeNull();
    }
    expect(target.querySelectorAll('h3').length).toBeGreaterThanOrEqual(3);
  });

  it('says "No decisions in this period" instead of empty charts', async () => {
    const backend = new FakeBackend();
    backend.teamStats = emptyTeamStats();
    const { tid, target } = await render(backend);
    expect(text(tid('team-empty'))).toBe('No decisions in this period.');
    expect(tid('team-totals')).toBeNull();
    expect(target.querySelector('canvas, table')).toBeNull();
    // Calls waited, nobody decided: the message, and the pending chart alone.
    backend.teamStats = { ...emptyTeamStats(), pendingOverTime: [{ at: '2026-11-30T18:00:00.000000Z', pending: 2 }] };
    (tid('team-refresh') as HTMLButtonElement).click();
    await settle();
    expect(text(tid('team-empty'))).toBe('No decisions in this period.');
    expect(tid('team-pending')).not.toBeNull();
    expect(tid('team-tools')).toBeNull();
    expect(tid('team-operators')).toBeNull();
  });

  it('says when decisions were made but no call was pending at the end of an hour', async () => {
    const backend = new FakeBackend();
    backend.teamStats = makeTeamStats({ pendingOverTime: [{ at: '2026-11-30T18:00:00.000000Z', pending: 0 }] });
    const { tid } = await render(backend);
    expect(tid('team-pending')).toBeNull();
    expect(text(tid('team-no-pending'))).toBe('No call was waiting at the end of any hour of this period.');
  });

  it('shows a refusal in words, with the server message, and loads on Refresh once it works', async () => {
    const backend = new FakeBackend();
    backend.failStats = new ApiError('forbidden', 'this needs the operator role; bot is agent', { needed: 'operator', role: 'agent' }, 403);
    const { tid } = await render(backend);
    const err = tid('team-load-error')!;
    expect(err.getAttribute('role')).toBe('alert');
    expect(err.dataset.code).toBe('forbidden');
    expect(text(err.querySelector('strong'))).toBe("This token's role does not allow this. Nothing was changed.");
    expect(text(tid('team-load-error-message'))).toBe('this needs the operator role; bot is agent');
    expect(tid('team-loading')).toBeNull();
    expect(tid('team-totals')).toBeNull();
    backend.failStats = null;
    tid('team-refresh')!.click();
    await settle();
    expect(tid('team-load-error')).toBeNull();
    expect(text(tid('team-decided'))).toBe('18');
  });

  it('says it is loading until the answer comes, and drops the answer for a period no longer chosen', async () => {
    const backend = new FakeBackend();
    let open!: () => void;
    backend.statsGate = new Promise((r) => (open = r));
    backend.teamStats = (days) => makeTeamStats({ decisions: { approved: days, declined: 0, expired: 0, resumed: 0, total: days } });
    const { tid, period } = await render(backend);
    expect(tid('team-loading')!.getAttribute('role')).toBe('status');
    expect(tid('team-view')!.getAttribute('aria-busy')).toBe('true');
    backend.statsGate = null;
    period(30).click();
    await settle();
    expect(text(tid('team-decided'))).toBe('30');
    open(); // the answer for 7 days arrives late
    await settle();
    expect(text(tid('team-decided'))).toBe('30');
    expect(period(30).getAttribute('aria-pressed')).toBe('true');
    expect(tid('team-view')!.getAttribute('aria-busy')).toBe('false');
  });

  it('shows tool and operator names as text only, never as markup', async () => {
    const backend = new FakeBackend();
    const evil = '<img src=x onerror=alert(1)>';
    backend.teamStats = makeTeamStats({
      byTool: [{ tool: evil, decided: 1, p50Secs: 1, p90Secs: 2, declined: 0, expired: 0 }],
      byOperator: [{ operator: `<b>mallory</b>${evil}`, decided: 1, p50Secs: 1, p90Secs: 2 }],
    });
    const { tid, target } = await render(backend);
    expect(target.querySelector('img, b')).toBeNull();
    expect(text(tid('team-tool-row')!.querySelector('th'))).toBe(evil);
    expect(text(tid('team-operator-row')!.querySelector('th'))).toBe(`<b>mallory</b>${evil}`);
  });

  it('speaks Japanese, with no English left but the names from the wire', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const { tid, target, period } = await render(backend);
    expect(text(target.querySelector('h2'))).toBe('統計');
    expect([1, 7, 30].map((d) => text(period(d)))).toEqual(['過去 24 時間', '過去 7 日間', '過去 30 日間']);
    expect(text(tid('team-declined-share'))).toBe('決定済みの 16.7%');
    const attrs = [...target.querySelectorAll('*')].flatMap((el) => ['aria-label', 'title'].map((a) => el.getAttribute(a) ?? ''));
    let all = [target.textContent ?? '', ...attrs].join('\n');
    for (const w of ['delete_record', 'alice (web)', 'p50', 'p90', 'UTC']) all = all.split(w).join(' ');
    expect([...new Set(all.match(/[A-Za-z]{3,}/g) ?? [])]).toEqual([]);
    i18n.set('en');
    flushSync();
    expect(text(target.querySelector('h2'))).toBe('Statistics');
  });
});
