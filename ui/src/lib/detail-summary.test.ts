// The detail's three lines (issue 45): what a call would do, where, and why in the agent's words.
import { describe, expect, it } from 'vitest';
import { makeItem } from './testing/fake-backend';
import { agentWordsOf, whatOf, whereOf, WHAT_LIMIT } from './detail-summary';

describe('detail summary', () => {
  it("says what a call would do: a coding agent's command, a file edit's change in words, else its arguments; nothing for a question", () => {
    expect(whatOf(makeItem({ source: 'claude-code', engine: 'claude-code', toolName: 'Bash', args: { command: 'kubectl --context prod delete deploy api' } }))).toEqual({
      kind: 'tool',
      text: '$ kubectl --context prod delete deploy api',
    });
    const changes = { summary: 'edits 1 line in src/pay.py', moreFiles: false, files: [{ path: 'src/pay.py', action: 'edit' as const, diff: '', added: 1, removed: 1, againstDisk: true, cut: false }] };
    expect(whatOf(makeItem({ source: 'claude-code', toolName: 'Edit', args: { file_path: '/r/src/pay.py', old_string: 'a', new_string: 'b' }, changes }))?.kind).toBe('changes');
    expect(whatOf(makeItem({ args: { id: 'rec-1' } }))).toEqual({ kind: 'args', text: 'id: "rec-1"' });
    expect(whatOf(makeItem({ args: { q: 'x'.repeat(1000) } }))!.text.length).toBe(WHAT_LIMIT + 1);
    expect(whatOf(makeItem({ kind: 'suspend', args: { question: 'Which?' }, suspendPayload: { question: 'Which?' } }))).toBeNull();
  });

  it('says where from what the agent said around the call first, then its arguments: a directory, a host (also from a URL), a database', () => {
    expect(whereOf({ context: { cwd: '/home/dev/infra' }, args: { cwd: '/elsewhere' } })).toEqual({ cwd: '/home/dev/infra', host: null, database: null });
    expect(whereOf({ context: null, args: { database: 'orders-prod', host: 'db-3.internal', query: 'select 1' } })).toEqual({ cwd: null, host: 'db-3.internal', database: 'orders-prod' });
    expect(whereOf({ context: null, args: { url: 'https://user:pw@api.example.com:8443/v1/pay' } }).host).toBe('api.example.com:8443');
    expect(whereOf({ context: null, args: { url: 'not a url', host: '  ' } }).host).toBeNull();
    expect(whereOf({ context: ['cwd'], args: 'text' })).toEqual({ cwd: null, host: null, database: null });
  });

  it("finds the agent's own words: what it said around the call, else Claude Code's description of a command, else none", () => {
    expect(agentWordsOf({ context: { why: 'Pay invoice 42' }, args: {}, source: 'http', toolName: 'pay' })).toBe('Pay invoice 42');
    expect(agentWordsOf({ context: { reason: 'clean-up', why: ' ' }, args: {}, source: 'http', toolName: 'pay' })).toBe('clean-up');
    expect(agentWordsOf({ context: { cwd: '/x' }, args: { command: 'ls', description: 'List files' }, source: 'claude-code', toolName: 'Bash' })).toBe('List files');
    expect(agentWordsOf({ context: null, args: { description: 'not its words' }, source: 'http', toolName: 'Bash' })).toBeNull();
    expect(agentWordsOf({ context: { why: 42 }, args: {}, source: 'http', toolName: 'pay' })).toBeNull();
  });
});
