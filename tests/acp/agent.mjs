// A tiny ACP agent on the official SDK (@agentclientprotocol/sdk): on a prompt naming a file, it asks
// session/request_permission to write it (a tool call "Write <file>", its diff and location, the four
// option kinds), writes it only when the selected option allows, and reports on a session update (as
// JSON text) which outcome it got, when it asked and was answered (ms since the epoch), and whether
// the console's agent credential reached its environment.
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';

const OPTIONS = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
];

let sessions = 0;
agent({ name: 'fixture-agent' })
  .onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: `session-${++sessions}` }))
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const file = params.prompt.find((b) => b.type === 'text').text.trim();
    const toolCallId = 'write-1';
    const toolCall = {
      toolCallId,
      title: `Write ${file}`,
      kind: 'edit',
      status: 'pending',
      locations: [{ path: file }],
      content: [{ type: 'diff', path: file, oldText: null, newText: 'hello from the agent\n' }],
      rawInput: { path: file, content: 'hello from the agent\n' },
    };
    // Announced first, as agents do; the request then names it by id (and repeats its title).
    await client.notify(methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'tool_call', ...toolCall } });
    const askedAt = Date.now();
    const answer = await client.request(methods.client.session.requestPermission, {
      sessionId: params.sessionId,
      toolCall: { toolCallId, title: toolCall.title },
      options: OPTIONS,
    });
    const answeredAt = Date.now();
    const outcome = answer.outcome.outcome === 'selected' ? OPTIONS.find((o) => o.optionId === answer.outcome.optionId)?.kind : 'cancelled';
    if (outcome === 'allow_once' || outcome === 'allow_always') writeFileSync(file, 'hello from the agent\n');
    const report = { outcome, askedAt, answeredAt, tokenSeen: Boolean(process.env.APPROVAL_CONSOLE_AGENT_TOKEN) };
    await client.notify(methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: JSON.stringify(report) } },
    });
    return { stopReason: 'end_turn' };
  })
  .connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
