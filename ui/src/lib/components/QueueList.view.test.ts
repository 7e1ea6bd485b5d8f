// The queue view (issue 6): tabs with counts, the filter bar, the server-side search, the order, a
// list that renders only the rows in view out of 100,000 calls and fetches pages as it scrolls, and
// calls grouped by run with "approve all / decline all", each call bound to its own fingerprint.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { QueueModel, type QueueOptions } from '../queue.svelte';
import { FakeBackend, fingerprintOf, makeAwaitingDecision, makeItem } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import QueueList from './QueueList.svelte';

async function render(backend: FakeBackend, options: QueueOptions = {}, props: { ondecided?: (i: QueueItem) => void } = {}) {
  const errors: ApiError[] = [];
  const queue = new QueueModel(backend, { onError: (e) => errors.push(e) }, options);
  await queue.reload();
  const selected: string[] = [];
  const { target } = mountInBody(QueueList, {
    props: { queue, selectedId: null, onselect: (id: string) => selected.push(id), ...props },
    context: backendContext(backend),
  });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  const all = (sel: string) => [...target.querySelectorAll<HTMLElement>(sel)];
  const rows = () => all('[data-testid="queue-item"]').map((e) => e.dataset.id);
  const tab = (name: string) => q(`[data-testid="state-tab"][data-tab="${name}"]`)!;
  const listCalls = () => backend.calls.filter((c) => c.method === 'listQueue').map((c) => c.args[0] as Record<string, unknown>);
  return { target, queue, q, all, rows, tab, listCalls, errors, selected };
}

/** A call in run `run`, paused at minute `n` past 10:00 (so higher n is newer). */
function call(id: string, n: number, over: Partial<QueueItem> = {}): QueueItem {
  return makeItem({ id, args: { id: `rec-${id}` }, runId: `run-${id}`, pausedAt: new Date(Date.UTC(2025, 0, 1, 10, 0, n)).toISOString(), ...over });
}

/** Scrolls the list as a browser would (jsdom keeps no scroll position of its own). */
async function scrollTo(el: HTMLElement, top: number) {
  Object.defineProperty(el, 'scrollTop', { value: top, writable: true, configurable: true });
  el.dispatchEvent(new Event('scroll'));
  await settle({ rounds: 3 });
}

describe('QueueList tabs, counts, filters, search and order', () => {
  it('shows a count per tab from one request, and lists the tab clicked', async () => {
    const backend = new FakeBackend();
    backend.add(
      call('p1', 1),
      call('p2', 2, { kind: 'suspend', allowed: ['resume'] }),
      call('out', 3, { state: 'decided', allowed: [] }),
      call('done', 4, { state: 'delivered', allowed: [] }),
      call('gone', 5, { state: 'gone', allowed: [] }),
      call('exp', 6, { state: 'delivered', allowed: [], decision: makeAwaitingDecision({ kind: 'decline', reason: 'expired', expiredAfterSecs: 60, delivery: 'delivered' }) }),
    );
    const { tab, rows, listCalls, all } = await render(backend);
    const counts = () => Object.fromEntries(all('[data-testid="state-tab"]').map((t) => [t.dataset.tab, t.querySelector('[data-testid="state-tab-count"]')!.textContent]));
    expect(counts()).toEqual({ pending: '2', awaiting_delivery: '1', decided: '1', expired: '1', gone: '1', all: '6' });
    expect(backend.calls.filter((c) => c.method === 'queueCounts')).toHaveLength(1);
    expect(tab('pending').getAttribute('aria-selected')).toBe('true');
    expect(rows()).toEqual(['p2', 'p1']);

    for (const [name, want] of [['awaiting_delivery', ['out']], ['decided', ['done']], ['expired', ['exp']], ['gone', ['gone']], ['all', ['exp', 'gone', 'done', 'out', 'p2', 'p1']]] as const) {
      tab(name).click();
      await settle();
      expect(rows(), name).toEqual(want);
      expect(tab(name).getAttribute('aria-selected')).toBe('true');
      expect(listCalls().at(-1)!.tab).toBe(name);
    }
    // Arrow keys move between the tabs.
    tab('all').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
    await settle();
    expect(listCalls().at(-1)!.tab).toBe('pending');
    expect(document.activeElement).toBe(tab('pending'));
  });

  it('sends the filter bar to the server; counts follow the filters', async () => {
    const backend = new FakeBackend();
    backend.add(call('a', 1, { engine: 'prod', agentId: 'ops', threadId: 't1' }), call('b', 2, { engine: 'local', kind: 'suspend', allowed: ['resume'] }));
    const { q, rows, listCalls, tab } = await render(backend);
    // The filters are folded away at first.
    const toggle = q('[data-testid="filters-toggle"]')!;
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(toggle.textContent!.trim()).toBe('▸ Filters');
    expect((q('[data-testid="queue-filters"]') as HTMLFormElement).hidden).toBe(true);
    toggle.click();
    await settle();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect((q('[data-testid="queue-filters"]') as HTMLFormElement).hidden).toBe(false);
    expect(q(`#${toggle.getAttribute('aria-controls')}`)).toBe(q('[data-testid="queue-filters"]'));
    const engine = q('[data-testid="filter-engine"]') as HTMLInputElement;
    type(engine, 'prod');
    engine.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ tab: 'pending', engine: 'prod' });
    expect(rows()).toEqual(['a']);
    expect(tab('pending').querySelector('[data-testid="state-tab-count"]')!.textContent).toBe('1');
    const counted = backend.calls.filter((c) => c.method === 'queueCounts').at(-1)!.args[0];
    expect(counted).toMatchObject({ engine: 'prod' });

    const kind = q('[data-testid="filter-kind"]') as HTMLSelectElement;
    kind.value = 'suspend';
    kind.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ engine: 'prod', kind: 'suspend' });
    expect(rows()).toEqual([]);
    expect(q('[data-testid="queue-empty"]')!.textContent).toBe('Nothing waiting for a decision.');
    expect(toggle.textContent!.trim()).toBe('▾ Filters (2 active)');
    // Folded, the toggle still says how many are set, and they can be cleared from there.
    toggle.click();
    await settle();
    expect((q('[data-testid="queue-filters"]') as HTMLFormElement).hidden).toBe(true);
    expect(toggle.textContent!.trim()).toBe('▸ Filters (2 active)');
    expect(toggle.dataset.active).toBe('2');

    q('[data-testid="filter-clear"]')!.click();
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ engine: '', kind: '' });
    expect(rows()).toEqual(['b', 'a']);
    expect(q('[data-testid="filter-clear"]')).toBeNull();
    expect(toggle.textContent!.trim()).toBe('▸ Filters');
  });

  it('filters by source with the Source select: sent to the server, counted as a filter, cleared with the others', async () => {
    const backend = new FakeBackend();
    backend.add(
      call('loc', 1),
      call('cc', 2, { engine: 'claude-code', source: 'claude-code', toolName: 'Bash', args: { command: 'ls' } }),
      call('cx', 3, { engine: 'codex', source: 'codex', toolName: 'shell', args: { command: ['ls'] } }),
      call('cc-done', 4, { engine: 'claude-code', source: 'claude-code', state: 'delivered', allowed: [] }),
    );
    const { q, rows, listCalls, tab } = await render(backend);
    const toggle = q('[data-testid="filters-toggle"]')!;
    toggle.click();
    await settle();
    const source = q('[data-testid="filter-source"]') as HTMLSelectElement;
    expect(source.closest('label')!.firstChild!.textContent!.trim()).toBe('Source');
    expect([...source.options].map((o) => [o.value, o.textContent])).toEqual([
      ['', 'Any source'],
      ['local', 'Local engine'],
      ['mastra', 'Mastra'],
      ['langgraph', 'LangGraph'],
      ['ag-ui', 'AG-UI'],
      ['a2a', 'A2A'],
      ['http', 'HTTP agent'],
      ['claude-code', 'Claude Code'],
      ['codex', 'Codex'],
      ['gemini', 'Gemini CLI'],
      ['mcp', 'MCP'],
      ['acp', 'ACP'],
      ['openai-agents', 'OpenAI Agents'],
      ['ai-sdk', 'AI SDK'],
      ['adk', 'ADK'],
      ['langchain', 'LangChain'],
    ]);
    expect(rows()).toEqual(['cx', 'cc', 'loc']);

    source.value = 'claude-code';
    source.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ tab: 'pending', source: 'claude-code' });
    expect(rows()).toEqual(['cc']);
    expect(backend.calls.filter((c) => c.method === 'queueCounts').at(-1)!.args[0]).toMatchObject({ source: 'claude-code' });
    expect(tab('pending').querySelector('[data-testid="state-tab-count"]')!.textContent).toBe('1');
    expect(tab('decided').querySelector('[data-testid="state-tab-count"]')!.textContent).toBe('1');
    expect(toggle.textContent!.trim()).toBe('▾ Filters (1 active)');

    // With the kind too: two filters.
    const kind = q('[data-testid="filter-kind"]') as HTMLSelectElement;
    kind.value = 'suspend';
    kind.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ source: 'claude-code', kind: 'suspend' });
    expect(toggle.textContent!.trim()).toBe('▾ Filters (2 active)');

    q('[data-testid="filter-clear"]')!.click();
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ source: '', kind: '' });
    expect(source.value).toBe('');
    expect(rows()).toEqual(['cx', 'cc', 'loc']);
    expect(toggle.textContent!.trim()).toBe('▾ Filters');

    source.value = 'local';
    source.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(rows()).toEqual(['loc']);
  });

  it('the fake backend refuses an unknown source, as the server does', async () => {
    const backend = new FakeBackend();
    backend.add(call('a', 1));
    for (const ask of [() => backend.listQueue({ source: 'slack' as 'mcp' }), () => backend.queueCounts({ source: 'slack' as 'mcp' })]) {
      const err = await ask().catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'invalid_request', status: 400 });
    }
    expect((await backend.listQueue({ source: '' })).items).toHaveLength(1);
    expect((await backend.queueCounts({ source: 'mcp' })).pending).toBe(0);
  });

  it('searches on the server once typing pauses (at once on Enter), showing the loaded matches meanwhile', async () => {
    const backend = new FakeBackend();
    for (let i = 0; i < 300; i++) backend.add(call(`c${i}`, i, { args: { id: `rec-${i}`, note: i === 3 ? 'Invoice' : 'routine' } }));
    const { q, rows, listCalls, queue } = await render(backend, { pageSize: 10, searchDelayMs: 20 });
    // Pages are fetched while their end is in view: a few, not all 30.
    expect(queue.items.length).toBeGreaterThanOrEqual(20);
    expect(queue.items.length).toBeLessThan(100);
    const search = q('[data-testid="queue-search"]') as HTMLInputElement;
    type(search, 'invoice');
    flushSync();
    // c3 is not loaded: nothing to show yet, and the server is asked once typing pauses.
    expect(rows()).toEqual([]);
    expect(q('[data-testid="search-empty"]')!.textContent).toContain('searching');
    expect(listCalls().at(-1)!.q).toBeUndefined();
    await new Promise((r) => setTimeout(r, 40));
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ tab: 'pending', q: 'invoice' });
    expect(rows()).toEqual(['c3']);
    expect(backend.calls.filter((c) => c.method === 'queueCounts').at(-1)!.args[0]).toMatchObject({ q: 'invoice' });

    // Typing filters what is loaded at once; Enter sends without waiting.
    type(search, 'c3 routine');
    flushSync();
    expect(rows()).toEqual([]);
    type(search, 'rec-2');
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle();
    expect(listCalls().find((c) => c.q === 'rec-2' && !c.cursor)).toBeDefined();
    expect(rows().slice(0, 3)).toEqual(['c299', 'c298', 'c297']);
    expect(rows()).not.toContain('c199');
    expect(queue.hasMore).toBe(true);

    // A live call that does not match the search stays out; one that does comes in.
    backend.add(call('new1', 1000, { args: { id: 'other' } }), call('new2', 1001, { args: { id: 'rec-2-new' } }));
    await queue.apply({ kind: 'queue', type: 'added', id: 'new1' });
    await queue.apply({ kind: 'queue', type: 'added', id: 'new2' });
    await settle();
    expect(rows()[0]).toBe('new2');
    expect(rows()).not.toContain('new1');
  });

  it('lists oldest first, and pages on in that order', async () => {
    const backend = new FakeBackend();
    for (let i = 0; i < 25; i++) backend.add(call(`c${i}`, i));
    const { q, rows, listCalls, queue } = await render(backend, { pageSize: 10 });
    const sort = q('[data-testid="filter-sort"]') as HTMLSelectElement;
    sort.value = 'oldest';
    sort.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(listCalls().at(-1)).toMatchObject({ sort: 'oldest' });
    expect(rows().slice(0, 3)).toEqual(['c0', 'c1', 'c2']);
    expect(q('[role="listbox"]')!.getAttribute('aria-label')).toBe('Calls, oldest first');
    // Scrolled to the end, the next pages come in the same order.
    while (queue.hasMore) await scrollTo(q('[data-testid="queue-scroller"]')!, 1e9);
    expect(queue.items.map((i) => i.id)).toEqual(Array.from({ length: 25 }, (_, i) => `c${i}`));
    const sinceSorted = listCalls().slice(listCalls().findIndex((c) => c.sort === 'oldest'));
    expect(sinceSorted.filter((c) => c.cursor).length).toBeGreaterThan(0);
    expect(sinceSorted.every((c) => c.sort === 'oldest')).toBe(true);
  });
});

describe('QueueList with 100,000 calls', () => {
  it('renders only the rows in view, and the ones in view after scrolling', async () => {
    const backend = new FakeBackend();
    const fp = 'sha256:' + 'ab'.repeat(32);
    const many: QueueItem[] = Array.from({ length: 100_000 }, (_, i) => makeItem({ id: `c${i}`, runId: `run-${i}`, fingerprint: fp, pausedAt: '2025-01-01T10:00:00Z' }));
    const queue = new QueueModel(backend, { onError: (e) => { throw e; } });
    queue.items = many;
    queue.loaded = true;
    const { target } = mountInBody(QueueList, { props: { queue, selectedId: null, onselect: () => {} }, context: backendContext(backend) });
    await settle();
    const rendered = () => [...target.querySelectorAll<HTMLElement>('[data-testid="queue-item"]')];
    expect(rendered().length).toBeGreaterThan(5);
    expect(rendered().length).toBeLessThan(60);
    expect(rendered()[0].dataset.id).toBe('c0');
    // The canvas is as tall as all rows together, so the scrollbar is true.
    const canvas = target.querySelector('.canvas') as HTMLElement;
    const rowHeight = parseFloat(rendered()[1].style.top) - parseFloat(rendered()[0].style.top);
    expect(parseFloat(canvas.style.height)).toBeCloseTo(rowHeight * 100_000, 0);
    expect(rendered()[0].getAttribute('aria-posinset')).toBe('1');
    expect(rendered()[0].getAttribute('aria-setsize')).toBe('100000');

    await scrollTo(target.querySelector('[data-testid="queue-scroller"]')!, rowHeight * 50_000);
    const ids = rendered().map((e) => Number(e.dataset.id!.slice(1)));
    expect(rendered().length).toBeLessThan(60);
    // The first call listed takes Tab (roving tabindex), so it stays rendered; the rest are around 50,000.
    expect(ids).toContain(0);
    const window = ids.filter((n) => n !== 0);
    expect(Math.min(...window)).toBeGreaterThan(49_980);
    expect(Math.max(...window)).toBeLessThan(50_040);
    expect(window).toContain(50_000);
    const row = rendered().find((e) => e.dataset.id === 'c50000')!;
    expect(parseFloat(row.style.top)).toBeCloseTo(rowHeight * 50_000, 0);
    expect(row.getAttribute('aria-posinset')).toBe('50001');
  });

  it('fetches the next page as its end comes into view, not before', async () => {
    const backend = new FakeBackend();
    for (let i = 0; i < 1000; i++) backend.add(call(`c${i}`, i));
    const { q, listCalls, queue } = await render(backend, { pageSize: 100 });
    expect(queue.items).toHaveLength(100);
    const pages = () => listCalls().filter((c) => c.cursor).length;
    expect(pages()).toBe(0);
    const scroller = q('[data-testid="queue-scroller"]')!;
    const rowHeight = parseFloat(q('[data-testid="queue-item"][data-id="c998"]')!.style.top);
    await scrollTo(scroller, rowHeight * 20);
    expect(pages()).toBe(0);
    await scrollTo(scroller, rowHeight * 95);
    expect(pages()).toBe(1);
    expect(queue.items).toHaveLength(200);
    // A failed page is not asked for again by itself: "Load more" retries.
    backend.failListQueue = new ApiError('network', 'down');
    await scrollTo(scroller, rowHeight * 195);
    expect(pages()).toBe(2);
    await scrollTo(scroller, rowHeight * 196);
    expect(pages()).toBe(2);
    backend.failListQueue = null;
    q('[data-testid="load-more"]')!.click();
    await settle();
    expect(queue.items).toHaveLength(300);
  });

  it('keeps keyboard focus working: the selected call is scrolled to and focused even far down the list', async () => {
    const backend = new FakeBackend();
    const queue = new QueueModel(backend, { onError: (e) => { throw e; } });
    queue.items = Array.from({ length: 5000 }, (_, i) => makeItem({ id: `c${i}`, runId: `run-${i}`, fingerprint: 'sha256:' + '00'.repeat(32) }));
    queue.loaded = true;
    const { target } = mountInBody(QueueList, { props: { queue, selectedId: 'c4000', onselect: () => {} }, context: backendContext(backend) });
    await settle();
    const option = (id: string) => target.querySelector<HTMLElement>(`[data-testid="queue-item"][data-id="${id}"]`);
    expect(option('c4000')!.tabIndex).toBe(0);
    expect(target.querySelectorAll('[role="option"][tabindex="0"]')).toHaveLength(1);
  });
});

/**
 * Waits (polling, with a deadline) for a batch's results panel: each call's fingerprint is checked
 * with Web Crypto before it is sent, whose digests finish on a thread pool — on a loaded machine
 * later than any fixed number of ticks.
 */
async function batchDone(q: (sel: string) => HTMLElement | null) {
  await vi.waitFor(
    () => {
      flushSync();
      expect(q('[data-testid="batch-results"]')).not.toBeNull();
    },
    { timeout: 10_000, interval: 10 },
  );
}

describe('QueueList run groups', () => {
  it('shows the calls of one run together under its header, in list order otherwise', async () => {
    const backend = new FakeBackend();
    backend.add(call('a1', 5, { runId: 'run-a' }), call('b1', 4, { runId: 'run-b' }), call('a2', 3, { runId: 'run-a' }), call('c1', 2, { runId: 'run-c' }));
    const { rows, all } = await render(backend);
    expect(rows()).toEqual(['a1', 'a2', 'b1', 'c1']);
    const headers = all('[data-testid="run-header"]');
    expect(headers.map((h) => h.dataset.run)).toEqual(['run-a']);
    expect(headers[0].textContent).toContain('2 calls');
    // Options hold no controls; the header's buttons are outside the listbox.
    expect(all('[role="listbox"] button')).toEqual([]);
    expect(headers[0].closest('[role="listbox"]')).toBeNull();
  });

  it('approves every waiting call of a run, each with its own fingerprint as shown, and reports each result', async () => {
    const backend = new FakeBackend();
    const fpOf = (id: string) => fingerprintOf('delete_record', { id: `rec-${id}` });
    backend.add(
      call('r1', 9, { runId: 'run-x' }),
      call('r2', 8, { runId: 'run-x' }),
      call('r3', 7, { runId: 'run-x' }),
      // Needs an answer of its own: not part of "approve all".
      call('r4', 6, { runId: 'run-x', kind: 'suspend', toolName: 'ask_operator', args: { q: 'which?' }, allowed: ['resume'], fingerprint: fingerprintOf('ask_operator', { q: 'which?' }) }),
      call('other', 5, { runId: 'run-y' }),
    );
    const decided: string[] = [];
    const { q, all } = await render(backend, {}, { ondecided: (i) => decided.push(i.id) });
    // r2 changes on the server after it was shown: its decision, bound to what was shown, is refused.
    const approve = backend.approve.bind(backend);
    backend.approve = (id: string, fingerprint: string) => {
      if (id === 'r2') {
        backend.calls.push({ method: 'approve', args: [id, fingerprint] });
        return Promise.reject(new ApiError('fingerprint_mismatch', 'the call changed', { expected: fingerprint, actual: 'sha256:' + 'ff'.repeat(32) }));
      }
      return approve(id, fingerprint);
    };

    q('[data-testid="run-header"][data-run="run-x"] [data-testid="run-approve-all"]')!.click();
    await settle();
    const confirm = q('[data-testid="batch-confirm"]')!;
    expect(confirm.textContent).toContain('Approve 3 calls of run');
    expect(backend.calls.filter((c) => c.method === 'approve')).toEqual([]);
    expect(document.activeElement).toBe(q('[data-testid="batch-send"]'));
    q('[data-testid="batch-send"]')!.click();
    await batchDone(q);

    expect(backend.calls.filter((c) => c.method === 'approve')).toEqual([
      { method: 'approve', args: ['r1', fpOf('r1')] },
      { method: 'approve', args: ['r2', fpOf('r2')] },
      { method: 'approve', args: ['r3', fpOf('r3')] },
    ]);
    expect(decided).toEqual(['r1', 'r3']);
    const results = all('[data-testid="batch-result"]');
    expect(results.map((r) => [r.dataset.id, r.dataset.ok, r.dataset.code])).toEqual([
      ['r1', 'true', ''],
      ['r2', 'false', 'fingerprint_mismatch'],
      ['r3', 'true', ''],
    ]);
    expect(q('[data-testid="batch-results"]')!.textContent).toContain('Approved 2 of 3');
    expect(q('[data-testid="batch-confirm"]')).toBeNull();
  });

  it('declines a run with one reason; a call whose arguments do not match its fingerprint is not sent', async () => {
    const backend = new FakeBackend();
    backend.add(call('d1', 9, { runId: 'run-z' }), call('d2', 8, { runId: 'run-z', fingerprint: 'sha256:' + '12'.repeat(32) }));
    const { q, all } = await render(backend);
    q('[data-testid="run-decline-all"]')!.click();
    await settle();
    const reason = q('[data-testid="batch-reason"]') as HTMLInputElement;
    expect(document.activeElement).toBe(reason);
    type(reason, 'whole run is wrong');
    reason.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await batchDone(q);
    expect(backend.calls.filter((c) => c.method === 'decline')).toEqual([
      { method: 'decline', args: ['d1', fingerprintOf('delete_record', { id: 'rec-d1' }), 'whole run is wrong'] },
    ]);
    expect(all('[data-testid="batch-result"]').map((r) => [r.dataset.id, r.dataset.ok, r.dataset.code])).toEqual([
      ['d1', 'true', ''],
      ['d2', 'false', 'fingerprint_mismatch_shown'],
    ]);
  });

  it('Esc or Cancel sends nothing', async () => {
    const backend = new FakeBackend();
    backend.add(call('e1', 9, { runId: 'run-e' }), call('e2', 8, { runId: 'run-e' }));
    const { q } = await render(backend);
    q('[data-testid="run-approve-all"]')!.click();
    await settle();
    q('[data-testid="batch-send"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
    await settle();
    expect(q('[data-testid="batch-confirm"]')).toBeNull();
    q('[data-testid="run-approve-all"]')!.click();
    await settle();
    q('[data-testid="batch-cancel"]')!.click();
    await settle();
    expect(q('[data-testid="batch-confirm"]')).toBeNull();
    expect(backend.calls.filter((c) => c.method === 'approve')).toEqual([]);
  });
});
