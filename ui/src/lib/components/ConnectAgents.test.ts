// The empty queue's next step (issue 45): how to connect Claude Code, an HTTP agent or an MCP server,
// with a button that makes the agent token each needs (the tokens operation) and puts it in the lines.
import { describe, expect, it } from 'vitest';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import ConnectAgents from './ConnectAgents.svelte';

async function render(backend: FakeBackend, principal = { name: 'me', role: 'admin' as const, kind: 'local' as const }) {
  const { target } = mountInBody(ConnectAgents, { props: {}, context: backendContext(backend, principal) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, tid };
}

describe('ConnectAgents', () => {
  it('makes a Claude Code token through the tokens operation and shows it in the lines to run, once', async () => {
    const backend = new FakeBackend();
    const { target, tid } = await render(backend);
    expect(tid('queue-nothing-waiting')!.textContent).toBe('Nothing is waiting for a decision.');
    expect(tid('connect-lines')!.textContent).toContain('export APPROVAL_CONSOLE_AGENT_TOKEN=ac_…');
    tid('connect-make-token')!.click();
    await settle();
    const made = backend.calls.filter((c) => c.method === 'addToken').map((c) => c.args[0] as { name: string; role: string; sources: string[]; agents: string[] });
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ role: 'agent', agents: ['claude-code'], sources: ['claude-code'] });
    expect(made[0].name).toMatch(/^claude-hook-[0-9a-f]{4}$/);
    const lines = tid('connect-lines')!.textContent!;
    expect(lines).toMatch(/^export APPROVAL_CONSOLE_AGENT_TOKEN=\S+\n/);
    expect(lines).not.toContain('ac_…');
    expect(tid('connect-token-made')!.textContent).toContain(made[0].name);
    expect(tid('connect-make-token')).toBeNull();

    // Another way: its own token, for its own source.
    (target.querySelector('[data-testid="connect-way"][data-way="mcp"]') as HTMLElement).click();
    await settle();
    expect(tid('connect-panel')!.dataset.way).toBe('mcp');
    expect(tid('connect-lines')!.textContent).toContain('"mcp-gate"');
    tid('connect-make-token')!.click();
    await settle();
    expect((backend.calls.filter((c) => c.method === 'addToken').at(-1)!.args[0] as { sources: string[] }).sources).toEqual(['mcp']);
  });

  it('gives an operator, who may not make tokens, the command an admin runs', async () => {
    const backend = new FakeBackend();
    backend.principal = { name: 'alice', role: 'operator', kind: 'token' };
    const { tid } = await render(backend, { name: 'alice', role: 'operator', kind: 'token' } as never);
    expect(tid('connect-make-token')).toBeNull();
    expect(tid('connect-token-command')!.textContent).toBe('approval-console tokens add claude-hook --role agent --agent claude-code --source claude-code');
  });
});
