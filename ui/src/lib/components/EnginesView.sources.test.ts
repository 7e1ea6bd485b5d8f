// Engines → Sources seen (issue 45): every source calls came from — hooks, HTTP agents, the MCP gate,
// local and remote engines — with its engine, agents and counts; none yet: how to connect one.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../testing/fake-backend';
import { renderEngines as render } from '../testing/engines-view';

describe('EnginesView sources', () => {
  it('lists every source seen with its engine, agents, calls and waiting calls; names stay text', async () => {
    const backend = new FakeBackend();
    backend.sourcesSeen = [
      { source: 'claude-code', engine: 'claude-code', calls: 5, pending: 2, firstSeen: '2025-01-01T09:00:00Z', lastSeen: '2025-01-01T10:00:00Z', moreAgents: 0,
        agents: [{ agentId: 'claude-code', agentName: null, calls: 5, pending: 2, lastSeen: '2025-01-01T10:00:00Z' }] },
      { source: 'http', engine: 'http', calls: 3, pending: 0, firstSeen: '2025-01-01T08:00:00Z', lastSeen: '2025-01-01T09:30:00Z', moreAgents: 4,
        agents: [{ agentId: 'billing', agentName: '<b>Billing</b>', calls: 3, pending: 0, lastSeen: '2025-01-01T09:30:00Z' }] },
      { source: 'mcp', engine: 'mcp', calls: 1, pending: 1, firstSeen: '2025-01-01T07:00:00Z', lastSeen: '2025-01-01T07:00:00Z', moreAgents: 0,
        agents: [{ agentId: 'filesystem', agentName: null, calls: 1, pending: 1, lastSeen: '2025-01-01T07:00:00Z' }] },
    ];
    const { target, tid } = await render(backend);
    const rows = [...target.querySelectorAll<HTMLElement>('[data-testid="source-seen"]')];
    expect(rows.map((r) => [r.dataset.source, r.dataset.engine])).toEqual([['claude-code', 'claude-code'], ['http', 'http'], ['mcp', 'mcp']]);
    expect(rows[0].querySelector('.source')!.textContent).toBe('Claude Code');
    expect(rows[0].querySelector('[data-testid="source-pending"]')!.textContent).toBe('2');
    expect(rows[1].querySelector('[data-testid="source-agents"]')!.textContent!.replace(/\s+/g, ' ').trim()).toBe('<b>Billing</b> and 4 more');
    expect(rows[1].querySelector('b')).toBeNull();
    // The remote engines follow, under their own heading.
    expect(tid('engines-empty')).not.toBeNull();
  });

  it('says nothing came yet and shows how to connect an agent', async () => {
    const { tid } = await render(new FakeBackend());
    expect(tid('sources-none')!.textContent).toBe('No call has come from any source yet.');
    expect(tid('connect-agents')).not.toBeNull();
    expect(tid('queue-nothing-waiting')).toBeNull();
  });
});
