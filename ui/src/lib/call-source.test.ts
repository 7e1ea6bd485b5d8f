import { describe, expect, it } from 'vitest';
import { agentOptionsOf, CALL_SOURCES, hookContextOf, inboxDeclineOf, interruptRequestsOf, isCallSource, reviewerDenialOf } from './call-source';

describe('call sources', () => {
  it('knows every source the server sends, and nothing else', () => {
    expect(CALL_SOURCES).toEqual(['local', 'mastra', 'langgraph', 'ag-ui', 'a2a', 'http', 'claude-code', 'codex', 'gemini', 'mcp', 'acp', 'openai-agents', 'ai-sdk', 'adk', 'langchain']);
    expect(CALL_SOURCES.every(isCallSource)).toBe(true);
    for (const v of ['', 'Claude Code', 'claude_code', 'slack', null, undefined, 1, ['local']]) expect(isCallSource(v), String(v)).toBe(false);
  });

  it('says what a decline reason becomes for a LangGraph Agent Inbox request, from its config only', () => {
    const inbox = (config: unknown) => ({ source: 'langgraph' as const, suspendPayload: { convention: 'agent-inbox', config } });
    expect(inboxDeclineOf(inbox({ allow_respond: true, allow_ignore: true }))).toBe('respond-or-ignore');
    expect(inboxDeclineOf(inbox({ allow_respond: true, allow_ignore: false }))).toBe('respond');
    expect(inboxDeclineOf(inbox({ allow_respond: false, allow_ignore: true }))).toBe('ignore');
    expect(inboxDeclineOf(inbox({ allow_respond: 'yes', allow_ignore: 1 }))).toBeNull();
    expect(inboxDeclineOf(inbox(null))).toBeNull();
    expect(inboxDeclineOf({ source: 'langgraph', suspendPayload: { convention: 'hitl-middleware', config: { allow_respond: true } } })).toBeNull();
    expect(inboxDeclineOf({ source: 'mastra', suspendPayload: { convention: 'agent-inbox', config: { allow_respond: true } } })).toBeNull();
    expect(inboxDeclineOf({ source: 'langgraph', suspendPayload: ['agent-inbox'] })).toBeNull();
  });

  it('counts the requests of a LangGraph interrupt only when it holds more than one', () => {
    const lg = (suspendPayload: unknown) => ({ source: 'langgraph' as const, suspendPayload });
    expect(interruptRequestsOf(lg({ convention: 'hitl-middleware', count: 2 }))).toBe(2);
    for (const p of [{ count: 1 }, { count: 2.5 }, { count: '2' }, {}, null, [2]]) expect(interruptRequestsOf(lg(p)), JSON.stringify(p)).toBeNull();
    expect(interruptRequestsOf({ source: 'mastra', suspendPayload: { count: 3 } })).toBeNull();
  });

  it("reads a hook's working directory and event from its context: strings of an object only", () => {
    expect(hookContextOf({ context: { event: 'PreToolUse', cwd: '/home/dev/shop', permissionMode: 'default', toolUseId: 'toolu_01' } })).toEqual({ cwd: '/home/dev/shop', event: 'PreToolUse' });
    expect(hookContextOf({ context: { cwd: 1, event: { name: 'PreToolUse' } } })).toEqual({ cwd: null, event: null });
    expect(hookContextOf({ context: { cwd: '', event: 'PermissionRequest' } })).toEqual({ cwd: null, event: 'PermissionRequest' });
    for (const context of [null, undefined, 'cwd', 42, ['/a', 'PreToolUse'], true]) expect(hookContextOf({ context }), String(context)).toEqual({ cwd: null, event: null });
    // Only its own keys, not what an object inherits.
    expect(hookContextOf({ context: JSON.parse('{"__proto__": {"cwd": "/inherited"}}') })).toEqual({ cwd: null, event: null });
  });

  it('reads the choices an ACP agent offered, only from an acp call, with the kinds the protocol defines', () => {
    const options = [
      { optionId: 'a1', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'a2', name: 'Always allow <b>rm</b>', kind: 'allow_always' },
      { optionId: 'r1', name: 'Reject', kind: 'reject_once' },
      { optionId: 'x', name: 'Something else', kind: 'allow_forever' },
      'not an option',
    ];
    expect(agentOptionsOf({ source: 'acp', context: { options } })).toEqual([
      { name: 'Allow once', kind: 'allow_once' },
      { name: 'Always allow <b>rm</b>', kind: 'allow_always' },
      { name: 'Reject', kind: 'reject_once' },
      { name: 'Something else', kind: null },
    ]);
    expect(agentOptionsOf({ source: 'claude-code', context: { options } })).toBeNull();
    expect(agentOptionsOf({ source: 'acp', context: { options: [] } })).toBeNull();
    expect(agentOptionsOf({ source: 'acp', context: null })).toBeNull();
    const many = Array.from({ length: 50 }, (_, i) => ({ name: 'n'.repeat(300) + i, kind: 'allow_once' }));
    const read = agentOptionsOf({ source: 'acp', context: { options: many } })!;
    expect([read.length, read[0].name.length]).toEqual([20, 200]);
  });

  it("reads a denial of Codex's own reviewer only from a codex call marked so, with its rationale as text", () => {
    const codex = (context: unknown) => ({ source: 'codex' as const, context });
    expect(reviewerDenialOf(codex({ guardianDenied: true, reason: 'it wipes the build cache' }))).toBe('it wipes the build cache');
    expect(reviewerDenialOf(codex({ guardianDenied: true }))).toBe('');
    expect(reviewerDenialOf(codex({ guardianDenied: true, reason: { html: '<b>' } }))).toBe('');
    for (const context of [{ guardianDenied: 'true' }, { guardianDenied: false }, {}, null, 'guardianDenied', [true]]) {
      expect(reviewerDenialOf(codex(context)), JSON.stringify(context)).toBeNull();
    }
    expect(reviewerDenialOf({ source: 'claude-code', context: { guardianDenied: true, reason: 'x' } })).toBeNull();
    expect(reviewerDenialOf(codex(JSON.parse('{"__proto__": {"guardianDenied": true}}')))).toBeNull();
  });
});
