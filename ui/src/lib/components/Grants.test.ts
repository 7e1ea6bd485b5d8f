import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeGrant, makeItem } from '../testing/fake-backend';
import { i18n } from '../i18n/index.svelte';
import { check, mountInBody, settle, type } from '../testing/mount';
import Detail from './Detail.svelte';
import GrantsView from './GrantsView.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function renderDetail(item: QueueItem, backend: FakeBackend, highRisk = false) {
  const onerror = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror, highRisk }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
  return { target, q, all, onerror };
}

function choose(el: HTMLElement | null, value: string) {
  const select = el as HTMLSelectElement;
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

describe('Always allow… in the detail', () => {
  // Mounting the detail and opening the form cost most of these tests (jsdom rendering, ~0.4-1.5 s the
  // first time in a file): the preview words and what is sent are two tests, each well inside the
  // default timeout on a loaded machine. No test here waits on a clock.
  it('previews the scope and the conditions in plain words as they are chosen', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ args: { id: 'rec-1', limit: 5, deep: { x: 1 } } });
    backend.add(item);
    const { q, all } = renderDetail(item, backend);
    q('grant-open')!.click();
    await settle();
    // The narrowest scope first: this run.
    expect((q('grant-scope-run') as HTMLInputElement).checked).toBe(true);
    expect(text(q('grant-preview'))).toBe('Approves every delete_record call of run run-1 (agent demo on engine local), without asking.');
    (q('grant-scope-engine') as HTMLInputElement).click();
    flushSync();
    expect(text(q('grant-preview'))).toBe('Approves every delete_record call of any agent on engine local, without asking.');
    (q('grant-scope-agent') as HTMLInputElement).click();
    flushSync();
    expect(text(q('grant-preview'))).toBe('Approves every delete_record call of agent demo on engine local, without asking.');
    // Conditions from the top-level scalars only, each off until ticked.
    expect(all('grant-condition').map((c) => c.dataset.key)).toEqual(['id', 'limit']);
    const [idCond, limitCond] = all('grant-condition');
    check(idCond.querySelector('[data-testid="grant-condition-on"]'), true);
    flushSync();
    expect(text(q('grant-preview'))).toBe('Approves every delete_record call of agent demo on engine local when id equals rec-1, without asking.');
    choose(idCond.querySelector('[data-testid="grant-condition-op"]'), 'prefix');
    flushSync();
    type(idCond.querySelector('[data-testid="grant-condition-prefix"]'), 'rec-');
    check(limitCond.querySelector('[data-testid="grant-condition-on"]'), true);
    choose(limitCond.querySelector('[data-testid="grant-condition-op"]'), 'atMost');
    flushSync();
    expect(text(q('grant-preview'))).toBe(
      'Approves every delete_record call of agent demo on engine local when id starts with rec- and limit is at most 5, without asking.',
    );
  });

  it('sends the scope, conditions, lifetime and the fingerprint on screen, also when the call changed meanwhile', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ args: { id: 'rec-1', limit: 5, deep: { x: 1 } } });
    backend.add(item);
    const { q, all } = renderDetail(item, backend);
    q('grant-open')!.click();
    await settle();
    (q('grant-scope-agent') as HTMLInputElement).click();
    const [idCond, limitCond] = all('grant-condition');
    check(idCond.querySelector('[data-testid="grant-condition-on"]'), true);
    choose(idCond.querySelector('[data-testid="grant-condition-op"]'), 'prefix');
    flushSync();
    type(idCond.querySelector('[data-testid="grant-condition-prefix"]'), 'rec-');
    check(limitCond.querySelector('[data-testid="grant-condition-on"]'), true);
    choose(limitCond.querySelector('[data-testid="grant-condition-op"]'), 'atMost');
    choose(q('grant-lifetime'), '86400');
    flushSync();
    expect(text(q('grant-fingerprint'))).toBe(item.fingerprint);
    q('grant-save')!.click();
    await settle();
    expect(q('grant-form')!.dataset.step).toBe('confirm');
    // The call changes on the server while the confirm step is shown: the fingerprint on screen is the one sent.
    backend.add({ ...item, fingerprint: 'sha256:' + 'ff'.repeat(32) });
    q('grant-confirm-yes')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'createGrant').map((c) => c.args[0])).toEqual([
      {
        fromItem: item.id,
        fingerprint: item.fingerprint,
        scope: 'agent',
        conditions: [
          { pointer: '/id', op: 'prefix', value: 'rec-' },
          { pointer: '/limit', op: 'atMost', value: 5 },
        ],
        expiresInSecs: 86_400,
        applyToWaiting: true,
      },
    ]);
    expect(q('grant-error')!.dataset.code).toBe('fingerprint_mismatch');
  });

  it('reports the grant made, and sends no conditions unless ticked', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const { q } = renderDetail(item, backend);
    q('grant-open')!.click();
    await settle();
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    expect(backend.calls.find((c) => c.method === 'createGrant')!.args[0]).toMatchObject({ scope: 'run', conditions: [], expiresInSecs: 3600 });
    expect(q('grant-form')).toBeNull();
    expect(text(q('grant-made'))).toContain('every delete_record call of run run-1 (agent demo on engine local)');
  });

  it('shows untrusted names and values as text with hidden characters escaped', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ toolName: 'del\u202Eete', agentId: '<b>x</b>', args: { 'k\u200By': 'p\u0430y' } });
    backend.add(item);
    const { q, target } = renderDetail(item, backend);
    q('grant-open')!.click();
    await settle();
    expect(text(q('grant-preview'))).toContain('every del\\u{202E}ete call of run run-1 (agent <b>x</b> on engine local)');
    expect(q('grant-form')!.querySelector('b')).toBeNull();
    check(q('grant-condition-on'), true);
    flushSync();
    expect(text(q('grant-preview'))).toContain('k\\u{200B}y equals pаy');
    expect(target.querySelector('[data-testid="grant-preview"] [data-mark="lookalike"]')).not.toBeNull();
  });

  it('is not offered for a high-risk tool or a suspend call', () => {
    const backend = new FakeBackend();
    expect(renderDetail(makeItem(), backend, true).q('grant-open')).toBeNull();
    const suspend = makeItem({ id: 'q2', kind: 'suspend', resumeSchema: { type: 'object', properties: {} } });
    expect(renderDetail(suspend, backend).q('grant-open')).toBeNull();
  });

  it('shows high_risk_tool when the server refuses the grant', async () => {
    const backend = new FakeBackend();
    backend.notifySettings = { ...backend.notifySettings, highRiskTools: ['delete_record'] };
    const item = makeItem();
    backend.add(item);
    const { q, onerror } = renderDetail(item, backend); // the console had not read the list yet
    q('grant-open')!.click();
    await settle();
    q('grant-save')!.click();
    await settle();
    expect(q('grant-error')!.dataset.code).toBe('high_risk_tool');
    expect(text(q('grant-error'))).toContain('high-risk');
    expect(onerror).not.toHaveBeenCalled();
    expect(backend.grants).toEqual([]);
  });
});

describe('how many waiting calls a grant approves now', () => {
  afterEach(() => i18n.set('system'));
  const counted = { timeout: 3000 };
  /** Three waiting deletes of agent demo (two in run-1), one lookup. */
  function waiting(backend: FakeBackend) {
    const item = makeItem({ id: 'q1', runId: 'run-1', args: { id: 'rec-1' } });
    backend.add(
      item,
      makeItem({ id: 'q2', runId: 'run-2', args: { id: 'rec-2' } }),
      makeItem({ id: 'q3', runId: 'run-1', args: { id: 'rec-3' } }),
      makeItem({ id: 'q4', toolName: 'lookup_record' }),
    );
    return item;
  }
  const previews = (b: FakeBackend) => b.calls.filter((c) => c.method === 'previewGrant').map((c) => c.args[0] as { scope: string; conditions: unknown[] });

  it('asks at once on opening, again a moment after the scope or conditions change, and never shows a count for an earlier choice', async () => {
    const backend = new FakeBackend();
    const item = waiting(backend);
    const { q, all } = renderDetail(item, backend);
    q('grant-open')!.click();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(text(q('grant-waiting'))).toBe('Approves this call and 1 more waiting now.');
    expect(q('grant-waiting')!.dataset.count).toBe('2');
    expect(q('grant-waiting')!.getAttribute('role')).toBe('status');
    expect(previews(backend)).toEqual([{ fromItem: 'q1', fingerprint: item.fingerprint, scope: 'run', conditions: [], expiresInSecs: 3600 }]);

    // Two changes in a row: one question, for the last.
    (q('grant-scope-engine') as HTMLInputElement).click();
    flushSync();
    (q('grant-scope-agent') as HTMLInputElement).click();
    flushSync();
    expect(q('grant-waiting')!.dataset.state).toBe('counting');
    expect(text(q('grant-waiting'))).toBe('Counting the calls waiting now…');
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(text(q('grant-waiting'))).toBe('Approves this call and 2 more waiting now.');
    expect(previews(backend).map((p) => p.scope)).toEqual(['run', 'agent']);

    check(all('grant-condition')[0].querySelector('[data-testid="grant-condition-on"]'), true);
    flushSync();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(text(q('grant-waiting'))).toBe('Approves this call.');
    expect(previews(backend).at(-1)!.conditions).toEqual([{ pointer: '/id', op: 'equals', value: 'rec-1' }]);

    i18n.set('ja');
    flushSync();
    expect(text(q('grant-waiting'))).toBe('この呼び出しを承認します。');
  });

  it('says when this call is not among them, or none is', async () => {
    const backend = new FakeBackend();
    const item = waiting(backend);
    backend.add({ ...item, state: 'decided', allowed: [] }); // decided elsewhere meanwhile
    const { q } = renderDetail(item, backend);
    q('grant-open')!.click();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(text(q('grant-waiting'))).toBe('Approves 1 call waiting now, not this one.');
    (q('grant-scope-agent') as HTMLInputElement).click();
    flushSync();
    await vi.waitFor(() => expect(text(q('grant-waiting'))).toBe('Approves 2 calls waiting now, not this one.'), counted);
    (q('grant-scope-run') as HTMLInputElement).click();
    flushSync();
    backend.items.delete('q3');
    await vi.waitFor(() => expect(text(q('grant-waiting'))).toBe('No call waiting now is covered.'), counted);
  });

  it('shows why the count is not known, in words, and counts again after a change', async () => {
    const backend = new FakeBackend();
    const item = waiting(backend);
    backend.failPreview = new ApiError('storage_busy', 'the database is busy', null, 503);
    const { q } = renderDetail(item, backend);
    q('grant-open')!.click();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('error'), counted);
    expect(text(q('grant-waiting'))).toBe('How many waiting calls it would approve is not known:');
    expect(q('grant-waiting-error')!.dataset.code).toBe('storage_busy');
    expect(text(q('grant-waiting-error'))).toContain('The console database is busy.');
    expect(text(q('grant-waiting-error'))).toContain('the database is busy');
    backend.failPreview = null;
    (q('grant-scope-engine') as HTMLInputElement).click();
    flushSync();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(q('grant-waiting-error')).toBeNull();
  });

  it('after making the grant, says how many waiting calls it approved', async () => {
    const backend = new FakeBackend();
    const item = waiting(backend);
    const { q } = renderDetail(item, backend);
    q('grant-open')!.click();
    await settle();
    (q('grant-scope-agent') as HTMLInputElement).click();
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    expect(q('grant-made-count')!.dataset.count).toBe('3');
    expect(text(q('grant-made-count'))).toBe('It approved 3 calls waiting at once.');
  });

  it('"Leave the calls already waiting for me" approves none now, says so, and sends applyToWaiting: false', async () => {
    const backend = new FakeBackend();
    const item = waiting(backend);
    const { q } = renderDetail(item, backend);
    q('grant-open')!.click();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(text(q('grant-save'))).toBe('Approve this call and always allow…');
    check(q('grant-leave-waiting'), true);
    flushSync();
    expect(q('grant-waiting')!.dataset.state).toBe('left');
    expect(q('grant-waiting')!.dataset.count).toBeUndefined();
    expect(text(q('grant-waiting'))).toBe(
      'Approves no call now: the calls already waiting stay for you, this one too. Only calls paused from now on are approved.',
    );
    expect(text(q('grant-also-this-call'))).toBe('Saving approves nothing now; every later call the rule covers is approved.');
    expect(text(q('grant-form')!.querySelector('h4'))).toBe('Always allow later calls of delete_record');
    expect(text(q('grant-save'))).toBe('Always allow later calls…');
    const label = q('grant-leave-waiting')!.closest('label');
    expect(text(label)).toBe('Approve only later calls: leave the calls already waiting for me (this one too)');
    const asked = previews(backend).length;
    q('grant-save')!.click();
    await settle();
    // Confirmed once, briefly: nothing to list, nothing asked.
    expect(text(q('grant-confirm-question'))).toBe('Always allow later calls? It approves no call waiting now.');
    expect(q('grant-confirm-list')).toBeNull();
    expect(previews(backend).length).toBe(asked);
    expect(backend.calls.some((c) => c.method === 'createGrant')).toBe(false);
    expect(text(q('grant-confirm-yes'))).toBe('Always allow later calls');
    q('grant-confirm-yes')!.click();
    await settle();
    expect(backend.calls.find((c) => c.method === 'createGrant')!.args[0]).toMatchObject({ applyToWaiting: false, scope: 'run' });
    expect(q('grant-made-count')!.dataset.count).toBe('0');
    expect(text(q('grant-made-count'))).toBe('It approved no call waiting. The calls already waiting stay for you.');
    // Opened again: the tick is off, as at first.
    q('grant-open')!.click();
    await settle();
    expect((q('grant-leave-waiting') as HTMLInputElement).checked).toBe(false);
  });
});

describe('GrantsView', () => {
  it('lists grants with scope, conditions, uses, expiry and state, and revokes after a confirm step', async () => {
    const backend = new FakeBackend();
    backend.grants = [
      makeGrant({ id: 'g3', uses: 2, conditions: [{ pointer: '/id', op: 'prefix', value: 'rec-' }] }),
      makeGrant({ id: 'g2', scope: 'run', runId: 'run-9', expiresAt: '2020-01-01T00:00:00Z' }),
      makeGrant({ id: 'g1', scope: 'engine', agentId: null, revokedAt: '2025-01-01T10:30:00Z', revokedBy: 'web' }),
    ];
    const { target } = mountInBody(GrantsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
    await settle();
    const rows = [...target.querySelectorAll<HTMLElement>('[data-testid="grant-row"]')];
    expect(rows.map((r) => [r.dataset.id, r.dataset.state])).toEqual([
      ['g3', 'live'],
      ['g2', 'expired'],
      ['g1', 'revoked'],
    ]);
    const cell = (r: HTMLElement, id: string) => text(r.querySelector(`[data-testid="${id}"]`));
    expect(cell(rows[0], 'grant-scope')).toBe('every delete_record call of agent demo on engine local');
    expect(cell(rows[0], 'grant-conditions')).toBe('id starts with rec-');
    expect(cell(rows[0], 'grant-uses')).toBe('2');
    expect(cell(rows[1], 'grant-scope')).toBe('every delete_record call of run run-9 (agent demo on engine local)');
    expect(cell(rows[1], 'grant-conditions')).toBe('none: every call in scope');
    expect(cell(rows[2], 'grant-scope')).toBe('every delete_record call of any agent on engine local');
    // Only a live grant can be revoked.
    expect(rows.map((r) => !!r.querySelector('[data-testid="revoke"]'))).toEqual([true, false, false]);

    (rows[0].querySelector('[data-testid="revoke"]') as HTMLElement).click();
    await settle();
    expect(backend.calls.some((c) => c.method === 'revokeGrant')).toBe(false);
    expect(document.activeElement?.getAttribute('data-testid')).toBe('revoke-confirm-yes');
    (rows[0].querySelector('[data-testid="revoke-cancel"]') as HTMLElement).click();
    await settle();
    expect(backend.calls.some((c) => c.method === 'revokeGrant')).toBe(false);
    expect(document.activeElement?.getAttribute('data-testid')).toBe('revoke');

    (rows[0].querySelector('[data-testid="revoke"]') as HTMLElement).click();
    await settle();
    (rows[0].querySelector('[data-testid="revoke-confirm-yes"]') as HTMLElement).click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'revokeGrant').map((c) => c.args)).toEqual([['g3']]);
    const after = target.querySelector<HTMLElement>('[data-testid="grant-row"][data-id="g3"]')!;
    expect(after.dataset.state).toBe('revoked');
    expect(after.querySelector('[data-testid="revoke"]')).toBeNull();
  });

  it('lists the rules a grant wrote back and, after revoking, what became of each, as text only', async () => {
    const backend = new FakeBackend();
    const file = '/repo/.claude/settings.json';
    backend.grants = [
      makeGrant({
        id: 'g1',
        written: [
          { agent: 'claude-code', scope: 'project', rule: 'Bash(<b>npm</b> test)', location: file },
          { agent: 'claude-code', scope: 'session', rule: 'Read', location: null },
          { agent: 'codex', scope: 'user', rule: 'prefix_rule(pattern=["make"], decision="allow")', location: '~/.codex/rules/default.rules' },
        ],
      }),
    ];
    backend.revokeRemovals = {
      g1: [
        { agent: 'claude-code', scope: 'project', rule: 'Bash(<b>npm</b> test)', location: file, outcome: 'removed', backup: `${file}.bak` },
        { agent: 'claude-code', scope: 'session', rule: 'Read', location: null, outcome: 'session' },
        { agent: 'codex', scope: 'user', rule: 'prefix_rule(pattern=["make"], decision="allow")', location: '~/.codex/rules/default.rules', outcome: 'by_hand', why: 'the console does not edit Codex\'s rules files' },
      ],
    };
    const { target } = mountInBody(GrantsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
    await settle();
    const row = () => target.querySelector<HTMLElement>('[data-testid="grant-row"][data-id="g1"]')!;
    const items = (id: string) => [...row().querySelectorAll(`[data-testid="${id}"] li`)].map(text);
    expect(items('grant-written')).toEqual([
      `Bash(<b>npm</b> test) — claude-code (project scope), in ${file}`,
      "Read — claude-code (session scope), in the agent's session",
      'prefix_rule(pattern=["make"], decision="allow") — codex (user scope), in ~/.codex/rules/default.rules',
    ]);
    expect(row().querySelector('b')).toBeNull();

    (row().querySelector('[data-testid="revoke"]') as HTMLElement).click();
    await settle();
    (row().querySelector('[data-testid="revoke-confirm-yes"]') as HTMLElement).click();
    await settle();
    expect(items('grant-removals')).toEqual([
      `Bash(<b>npm</b> test) (claude-code) — removed from ${file} (backup at ${file}.bak)`,
      "Read (claude-code) — stays in the agent's session until that session ends",
      'prefix_rule(pattern=["make"], decision="allow") (codex) — remove it by hand from ~/.codex/rules/default.rules: the console does not edit Codex\'s rules files',
    ]);
  });
});
