// An AG-UI agent endpoint for the console's tests: a plain Node HTTP server that speaks AG-UI with the
// official packages — each RunAgentInput is checked with @ag-ui/core's RunAgentInputSchema, each event
// with its EventSchemas and written with @ag-ui/encoder's EventEncoder — and a scripted model (no
// network). The last user message picks the script:
//   "two"          two tool calls (send_email, delete_file), the run ends in an interrupt for each
//   "two-changed"  the same interrupts, send_email's arguments changed
//   "expiring"     the same two, the first expiring EXPIRES_MS (forwardedProps.expiresInMs) from now
//   anything else  a text answer, RUN_FINISHED success
// A run with `resume` must answer every open interrupt of its thread (an expired one `cancelled`), as
// the protocol asks; the agent answers RUN_ERROR otherwise. Every resume it took is listed at
// GET /received. Prints `listening <port>` once it listens on 127.0.0.1.
import { createServer } from 'node:http';
import { EventType } from '@ag-ui/core';
import { RunAgentInputSchema, EventSchemas } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';

const open = new Map(); // threadId -> interrupts
const received = [];

function script(input) {
  const last = [...input.messages].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

function* interruptRun(input, text) {
  const to = text === 'two-changed' ? 'evil@example.com' : 'a@example.com';
  const calls = [
    ['tc-1', 'send_email', { to, body: 'hello' }],
    ['tc-2', 'delete_file', { path: '/tmp/report.txt' }],
  ];
  for (const [id, name, args] of calls) {
    yield { type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: name };
    const json = JSON.stringify(args);
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: json.slice(0, 5) };
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: json.slice(5) };
    yield { type: EventType.TOOL_CALL_END, toolCallId: id };
  }
  const interrupts = calls.map(([id, name], n) => ({
    id: `int-${n + 1}`, reason: 'tool_approval', toolCallId: id, message: `Run ${name}?`,
  }));
  if (text === 'expiring') {
    const ms = Number(input.forwardedProps?.expiresInMs ?? 1500);
    interrupts[0].expiresAt = new Date(Date.now() + ms).toISOString();
  }
  open.set(input.threadId, interrupts);
  yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, outcome: { type: 'interrupt', interrupts } };
}

function* resumeRun(input) {
  const waiting = open.get(input.threadId) ?? [];
  const answers = new Map(input.resume.map((r) => [r.interruptId, r]));
  const missing = waiting.filter((i) => !answers.has(i.id)).map((i) => i.id);
  const stale = waiting.filter((i) => i.expiresAt && Date.parse(i.expiresAt) <= Date.now() && answers.get(i.id)?.status !== 'cancelled');
  if (waiting.length === 0 || missing.length > 0 || stale.length > 0) {
    yield { type: EventType.RUN_ERROR, message: `resume refused: missing ${missing}, stale ${stale.map((i) => i.id)}`, code: 'bad_resume' };
    return;
  }
  open.delete(input.threadId);
  received.push({ threadId: input.threadId, runId: input.runId, resume: input.resume, messages: input.messages.length });
  yield { type: EventType.TEXT_MESSAGE_START, messageId: `m-${input.runId}`, role: 'assistant' };
  yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `m-${input.runId}`, delta: 'done' };
  yield { type: EventType.TEXT_MESSAGE_END, messageId: `m-${input.runId}` };
  yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, outcome: { type: 'success' }, result: { answered: input.resume.length } };
}

function* answerRun(input) {
  yield { type: EventType.TEXT_MESSAGE_START, messageId: `m-${input.runId}`, role: 'assistant' };
  yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `m-${input.runId}`, delta: 'hello' };
  yield { type: EventType.TEXT_MESSAGE_END, messageId: `m-${input.runId}` };
  open.delete(input.threadId);
  yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, outcome: { type: 'success' } };
}

const server = createServer(async (req, res) => {
  if (req.method === 'GET' && req.url === '/received') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(received));
    return;
  }
  let body = '';
  for await (const chunk of req) body += chunk;
  let input;
  try {
    input = RunAgentInputSchema.parse(JSON.parse(body));
  } catch (e) {
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: String(e) }));
    return;
  }
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, { 'content-type': encoder.getContentType() });
  const send = (event) => res.write(encoder.encode(EventSchemas.parse(event)));
  send({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
  const text = script(input);
  const run = input.resume?.length ? resumeRun(input) : ['two', 'two-changed', 'expiring'].includes(text) ? interruptRun(input, text) : answerRun(input);
  for (const event of run) send(event);
  res.end();
});

server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
// A test's harness keeps stdin open; the agent ends with it (no process left behind).
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
