import { describe, expect, it } from 'vitest';
import { httpRoute, windowArgs } from './operations';
import { OPERATIONS } from './operations.gen';

describe('a declared operation travels as the core reads it', () => {
  it('over HTTP: its path filled and encoded, its body sent, its query without empty values', () => {
    expect(httpRoute('approve', { path: { id: 'q 1/2' }, input: { fingerprint: 'sha256:ab' } })).toEqual({
      method: 'POST',
      url: '/api/queue/q%201%2F2/approve',
      body: { fingerprint: 'sha256:ab' },
    });
    expect(httpRoute('queue_page', { input: { tab: 'pending', q: '', limit: 50 } })).toEqual({ method: 'GET', url: '/api/queue?tab=pending&limit=50' });
    expect(httpRoute('engines')).toEqual({ method: 'GET', url: '/api/engines' });
    expect(() => httpRoute('queue_item', {} as never)).toThrow(/needs its id/);
  });

  it('in the window: its input under the key the core reads, or beside its path parameters', () => {
    expect(OPERATIONS.queue_page.windowKey).toBe('query');
    expect(windowArgs('queue_page', { input: { tab: 'pending', limit: 50 } })).toEqual({ query: { tab: 'pending', limit: 50 } });
    expect(windowArgs('edit_engine', { path: { name: 'prod' }, input: { pollMs: 250 } })).toEqual({ name: 'prod', changes: { pollMs: 250 } });
    expect(windowArgs('decline', { path: { id: 'q_1' }, input: { fingerprint: 'f', reason: 'no' } })).toEqual({ id: 'q_1', fingerprint: 'f', reason: 'no' });
    expect(windowArgs('engine_kinds')).toEqual({});
  });

  it('a new operation is typed and routed with no method of its own', () => {
    expect(OPERATIONS.engine_kinds).toMatchObject({ method: 'GET', path: '/api/engine-kinds', declared: true, window: true });
    expect(httpRoute('engine_kinds')).toEqual({ method: 'GET', url: '/api/engine-kinds' });
  });
});
