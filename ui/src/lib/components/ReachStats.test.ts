// Statistics → Time to decision of calls that went to channels (issue 28): asked for the view's
// period and again on its Refresh; three tables (by channel, by person, by rule: calls, p50, p90 as
// durations) and the days' p50 and p90 (their table shown open: jsdom has no canvas); names as text;
// a period without such calls, and a refusal, in words. TeamView.charts.test.ts draws the chart.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { emptyReachStats, FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import TeamView from './TeamView.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

const figures = (days: number) => ({
  days,
  byChannel: [
    { key: 'alice-hook', calls: 12, p50Secs: 45, p90Secs: 240 },
    { key: '<b>ops</b>\u202Email', calls: 3, p50Secs: 3900, p90Secs: 7200 },
  ],
  byPerson: [{ key: 'alice', calls: 10, p50Secs: 90.4, p90Secs: 600 }],
  byRule: [{ key: 'payments', calls: 4, p50Secs: 30, p90Secs: 5400 }],
  byDay: [
    { key: '2026-12-06', calls: 7, p50Secs: 60, p90Secs: 300 },
    { key: '2026-12-07', calls: 8, p50Secs: 120, p90Secs: 3600 },
  ],
});

async function render(backend: FakeBackend) {
  const { target } = mountInBody(TeamView, { props: {}, context: backendContext(backend, { name: 'grafana', role: 'viewer', kind: 'token' }) });
  await settle();
  const section = () => target.querySelector('[data-testid="reach-stats"]') as HTMLElement | null;
  const tid = (id: string) => section()?.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const rows = (id: string) => [...(tid(id)?.querySelectorAll('tbody tr') ?? [])].map((r) => [...r.children].map((c) => text(c)));
  return { target, section, tid, rows };
}

const asked = (backend: FakeBackend) => backend.calls.filter((c) => c.method === 'reachStats').map((c) => c.args[0]);

beforeEach(() => {
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

afterEach(() => {
  i18n.set('system');
  flushSync();
  vi.restoreAllMocks();
});

describe('Statistics: time to decision by channel', () => {
  it('shows calls, p50 and p90 by channel, person and rule, the times as durations and the names as text', async () => {
    const backend = new FakeBackend();
    backend.reachFigures = figures;
    const { section, tid, rows } = await render(backend);
    expect(text(section()!.querySelector('h3'))).toBe('Time to decision');
    expect(text(tid('reach-stats-channel')!.querySelector('caption'))).toBe('By channel');
    expect(rows('reach-stats-channel')).toEqual([
      ['alice-hook', '12', '45 s', '4 min'],
      ['<b>ops</b>\\u{202E}mail', '3', '1 h 5 min', '2 h'],
    ]);
    expect(tid('reach-stats-channel')!.querySelector('b')).toBeNull();
    expect(rows('reach-stats-person')).toEqual([['alice', '10', '1 min 30 s', '10 min']]);
    expect(rows('reach-stats-rule')).toEqual([['payments', '4', '30 s', '1 h 30 min']]);
    // No canvas here: the chart's numbers are shown open.
    expect(tid('reach-chart')!.dataset.drawn).toBe('false');
    expect((tid('reach-chart-numbers') as HTMLDetailsElement).open).toBe(true);
    expect(rows('reach-chart-table')).toEqual([
      ['Dec 6', '7', '1 min', '5 min'],
      ['Dec 7', '8', '2 min', '1 h'],
    ]);
    expect(tid('reach-stats-empty')).toBeNull();
  });

  it("asks for the view's period, again for another one and on Refresh", async () => {
    const backend = new FakeBackend();
    backend.reachFigures = figures;
    const { target } = await render(backend);
    expect(asked(backend)).toEqual([7]);
    (target.querySelector('[data-testid="team-period"][data-days="30"]') as HTMLButtonElement).click();
    await settle();
    expect(asked(backend)).toEqual([7, 30]);
    (target.querySelector('[data-testid="team-refresh"]') as HTMLButtonElement).click();
    await settle();
    expect(asked(backend)).toEqual([7, 30, 30]);
  });

  it('says when no call that went to a channel was decided, and shows a refusal in words', async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend);
    expect(text(tid('reach-stats-empty'))).toBe('No call that went to a channel was decided in this period.');
    expect(tid('reach-chart')).toBeNull();

    const failing = new FakeBackend();
    failing.reachStats = async () => {
      throw new Error('connection refused');
    };
    const other = await render(failing);
    expect(other.tid('reach-stats-error')!.dataset.code).toBe('network');
    expect(text(other.tid('reach-stats-error-message'))).toBe('connection refused');
  });

  it('speaks Japanese', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.reachFigures = { ...emptyReachStats(7), byRule: [{ key: 'payments', calls: 2, p50Secs: 60, p90Secs: 120 }] };
    const { section, rows } = await render(backend);
    expect(text(section()!.querySelector('h3'))).toBe('決定までの時間');
    expect(rows('reach-stats-rule')).toEqual([['payments', '2', '1 分', '2 分']]);
  });
});
