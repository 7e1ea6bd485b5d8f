import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { FakeBackend, makeEngine } from '../testing/fake-backend';
import { settle, type } from '../testing/mount';
import { renderEngines as render, everythingShown, SECRET } from '../testing/engines-view';

describe('EnginesView', () => {
  it('lists each engine with its health, last error as text, counts and whether a token is stored', async () => {
    const backend = new FakeBackend();
    backend.addEngines(
      makeEngine({
        name: 'prod',
        baseUrl: 'http://10.0.0.5:4111',
        hasToken: true,
        pending: 4,
        awaitingDelivery: 2,
        health: {
          state: 'unreachable',
          lastError: '<img src=x onerror=alert(1)> connection refused',
          lastErrorAt: '2025-01-01T10:00:00Z',
          lastOkAt: '2025-01-01T09:00:00Z',
        },
      }),
      makeEngine({ name: 'staging', health: { state: 'auth_failed', lastError: 'HTTP 401', lastErrorAt: null, lastOkAt: null } }),
      makeEngine({ name: 'ok', kind: 'langgraph', health: { state: 'reachable', lastError: null, lastErrorAt: null, lastOkAt: '2025-01-01T09:30:00Z' } }),
    );
    const { tid, card } = await render(backend);
    // Which API each speaks, as a badge.
    expect([tid('engine-kind', card('prod')!)!.textContent, tid('engine-kind', card('ok')!)!.dataset.kind]).toEqual(['Mastra', 'langgraph']);
    expect(tid('engine-kind', card('ok')!)!.textContent).toBe('LangGraph');

    const prod = card('prod')!;
    expect(prod.dataset.health).toBe('unreachable');
    expect(tid('engine-health', prod)!.textContent).toBe('unreachable');
    expect(tid('engine-url', prod)!.textContent).toBe('http://10.0.0.5:4111');
    expect(tid('engine-last-error', prod)!.textContent).toBe('<img src=x onerror=alert(1)> connection refused');
    expect(prod.querySelector('img')).toBeNull();
    expect(tid('engine-last-error-at', prod)!.getAttribute('datetime')).toBe('2025-01-01T10:00:00Z');
    expect(tid('engine-last-ok', prod)!.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T09:00:00Z');
    expect(tid('engine-pending', prod)!.textContent).toBe('4');
    expect(tid('engine-awaiting', prod)!.textContent).toBe('2');
    expect(tid('engine-token', prod)!.textContent).toBe('token stored');

    expect(tid('engine-health', card('staging')!)!.textContent).toBe('auth failed');
    expect(tid('engine-last-ok', card('staging')!)!.textContent).toContain('never');
    expect(tid('engine-token', card('staging')!)!.textContent).toBe('no token');
    expect(tid('engine-health', card('ok')!)!.textContent).toBe('reachable');
    expect(tid('engine-last-error', card('ok')!)).toBeNull();
  });

  it('says when another console of the team syncs an engine, and nothing when this one does', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'shared', syncedHere: false }), makeEngine({ name: 'mine', syncedHere: true }));
    const { tid, card } = await render(backend);
    expect(tid('engine-synced-elsewhere', card('shared')!)!.textContent).toBe('another console of the team, which also delivers its decisions');
    expect(tid('engine-synced-elsewhere', card('mine')!)).toBeNull();
  });

  it('adds an engine: sends the token once, then never renders it anywhere', async () => {
    const backend = new FakeBackend();
    const { target, tid, card } = await render(backend);
    expect(tid('engines-empty')).not.toBeNull();

    const tokenInput = tid('add-engine-token') as HTMLInputElement;
    expect(tokenInput.type).toBe('password');
    expect(tokenInput.getAttribute('autocomplete')).toBe('off');
    expect((tid('add-engine-poll') as HTMLInputElement).value).toBe('1000');

    type(tid('add-engine-name'), 'remote-1');
    type(tid('add-engine-url'), 'http://127.0.0.1:4111');
    type(tokenInput, SECRET);
    tid('add-engine-submit')!.click();
    await settle();

    expect(backend.calls.filter((c) => c.method === 'addEngine')).toEqual([
      { method: 'addEngine', args: [{ name: 'remote-1', kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', token: SECRET, pollMs: 1000 }] },
    ]);
    const added = card('remote-1')!;
    expect(added).not.toBeNull();
    expect(tid('engine-token', added)!.textContent).toBe('token stored');
    expect(tid('add-engine-done')!.textContent).toContain('remote-1');
    // The form is cleared, and the token is nowhere on the page.
    expect(tokenInput.value).toBe('');
    expect((tid('add-engine-name') as HTMLInputElement).value).toBe('');
    expect(everythingShown(target)).not.toContain(SECRET);
  });

  it('leaves the token out of the request when the field is empty', async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend);
    type(tid('add-engine-name'), 'plain');
    type(tid('add-engine-url'), 'http://127.0.0.1:9');
    type(tid('add-engine-poll'), '250');
    tid('add-engine-submit')!.click();
    await settle();
    expect(backend.calls.find((c) => c.method === 'addEngine')!.args[0]).toEqual({ name: 'plain', kind: 'mastra', baseUrl: 'http://127.0.0.1:9', pollMs: 250 });
  });

  it.each([
    ['keyring_unavailable', 'no Secret Service on the session bus'],
    ['keyring_locked', 'the default collection is locked'],
    ['invalid_request', 'base URL: relative URL without a base'],
  ])('shows a refused add by code (%s) with the server message', async (code, message) => {
    const backend = new FakeBackend();
    const { tid, card } = await render(backend);
    type(tid('add-engine-name'), 'x');
    type(tid('add-engine-url'), 'nope');
    backend.failNext = new ApiError(code, message);
    tid('add-engine-submit')!.click();
    await settle();
    const err = tid('add-engine-error')!;
    expect(err.dataset.code).toBe(code);
    expect(err.getAttribute('role')).toBe('alert');
    expect(tid('add-engine-error-message')!.textContent).toBe(message);
    expect(err.textContent).toContain(code);
    expect(card('x')).toBeNull();
    // What was typed stays, to correct it.
    expect((tid('add-engine-url') as HTMLInputElement).value).toBe('nope');
  });

  it('Sync now shows the report', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1' }));
    backend.syncReport = { full: true, agents: 2, listed: 5, added: 3, changed: 1, gone: 2, skipped: 1 };
    const { tid, card } = await render(backend);
    tid('engine-sync', card('r1')!)!.click();
    await settle();
    const report = tid('engine-sync-report', card('r1')!)!;
    expect(tid('sync-added', report)!.textContent).toBe('3');
    expect(tid('sync-changed', report)!.textContent).toBe('1');
    expect(tid('sync-gone', report)!.textContent).toBe('2');
    expect(tid('sync-skipped', report)!.textContent).toBe('1');
    expect(tid('engine-sync-error', card('r1')!)).toBeNull();
  });

  it('a failed sync shows the code and message, and reloads the list to show the new health', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1' }));
    const { tid, card } = await render(backend);
    const listsBefore = backend.calls.filter((c) => c.method === 'listEngines').length;
    backend.failNext = new ApiError('engine_unreachable', 'GET http://127.0.0.1:9/api/agents: connection refused');
    backend.engines.set('r1', makeEngine({ name: 'r1', health: { state: 'unreachable', lastError: 'connection refused', lastErrorAt: '2025-01-01T10:00:00Z', lastOkAt: null } }));
    tid('engine-sync', card('r1')!)!.click();
    await settle();
    const err = tid('engine-sync-error', card('r1')!)!;
    expect(err.dataset.code).toBe('engine_unreachable');
    expect(err.textContent).toContain('GET http://127.0.0.1:9/api/agents: connection refused');
    expect(tid('engine-sync-report', card('r1')!)).toBeNull();
    expect(backend.calls.filter((c) => c.method === 'listEngines').length).toBe(listsBefore + 1);
    expect(tid('engine-health', card('r1')!)!.textContent).toBe('unreachable');
  });

  it('removes only after the confirm step', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1' }), makeEngine({ name: 'r2' }));
    const { tid, card } = await render(backend);

    tid('engine-remove', card('r1')!)!.click();
    await settle();
    expect(backend.calls.some((c) => c.method === 'removeEngine')).toBe(false);
    expect(document.activeElement).toBe(tid('engine-remove-confirm', card('r1')!));
    tid('engine-remove-cancel', card('r1')!)!.click();
    await settle();
    expect(tid('engine-remove-confirm', card('r1')!)).toBeNull();
    expect(document.activeElement).toBe(tid('engine-remove', card('r1')!));
    expect(backend.calls.some((c) => c.method === 'removeEngine')).toBe(false);

    tid('engine-remove', card('r1')!)!.click();
    await settle();
    tid('engine-remove-confirm', card('r1')!)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'removeEngine')).toEqual([{ method: 'removeEngine', args: ['r1'] }]);
    expect(card('r1')).toBeNull();
    expect(card('r2')).not.toBeNull();
  });

  it('refreshes the list while open, and stops when closed', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1' }));
    const { unmount, tid, card } = await render(backend, 20);
    expect(tid('engine-health', card('r1')!)!.textContent).toBe('unknown');
    backend.engines.set('r1', makeEngine({ name: 'r1', health: { state: 'reachable', lastError: null, lastErrorAt: null, lastOkAt: '2025-01-01T10:00:00Z' } }));
    await vi.waitFor(() => {
      flushSync();
      expect(tid('engine-health', card('r1')!)!.textContent).toBe('reachable');
    });
    unmount();
    const n = backend.calls.filter((c) => c.method === 'listEngines').length;
    await new Promise((r) => setTimeout(r, 80));
    expect(backend.calls.filter((c) => c.method === 'listEngines').length).toBe(n);
  });

  it('reports a failing list to the console banners', async () => {
    const backend = new FakeBackend();
    backend.failList = new ApiError('unauthorized', 'bad token');
    const { onerror } = await render(backend);
    expect(onerror).toHaveBeenCalled();
    expect(onerror.mock.calls[0][0].code).toBe('unauthorized');
  });

  it('shows the engine agents as text', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1' }));
    const { tid, card } = await render(backend);
    tid('engine-agents', card('r1')!)!.click();
    await settle();
    expect(tid('engine-agents-tree', card('r1')!)!.textContent).toContain('"ops"');
    expect(backend.calls.filter((c) => c.method === 'engineAgents')).toEqual([{ method: 'engineAgents', args: ['r1'] }]);
  });
});
