// The official MCP TypeScript SDK client driving `approval-console mcp-gate` in front of the real
// filesystem server (tests/mcp/gate.rs runs it and decides in the console meanwhile). Prints one
// JSON line per step on stdout: the tool list, then each call's result as the client got it
// (with ONLY_WRITE set: the tool list and one write). With PLAN set (JSON: `gateArgs`, the gate's own
// flags; `upstream`, the server's command; `calls`, `[step, tool, arguments]` each), it runs that
// instead: the tool list, then each call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { GATE_BIN, FS_SERVER, ROOT } = process.env;
const plan = process.env.PLAN ? JSON.parse(process.env.PLAN) : null;
const say = (step, value) => process.stdout.write(JSON.stringify({ step, ...value }) + '\n');

const args = plan
  ? ['mcp-gate', ...plan.gateArgs, '--', ...plan.upstream]
  : ['mcp-gate', '--agent', 'files-gate', '--timeout', '30', ...(process.env.GATE_FLAGS ?? '').split(' ').filter(Boolean), '--', process.execPath, FS_SERVER, ROOT];
const transport = new StdioClientTransport({
  command: GATE_BIN,
  args,
  env: { ...process.env, APPROVAL_CONSOLE_LOG: 'warn' },
  stderr: 'inherit',
});
const client = new Client({ name: 'gate-test-client', version: '1.0.0' });
await client.connect(transport);

const { tools } = await client.listTools();
say('tools', { tools: tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null })) });

const call = async (step, name, args) => {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  say(step, { isError: result.isError === true, text: result.content.map((c) => c.text ?? '').join('\n') });
};
if (plan) {
  for (const [step, name, args] of plan.calls) await call(step, name, args);
  await client.close();
  process.exit(0);
}
if (process.env.ONLY_WRITE) {
  await call('write', 'write_file', { path: `${ROOT}/unreached.txt`, content: 'never written' });
  await client.close();
  process.exit(0);
}
await call('read', 'read_text_file', { path: `${ROOT}/hello.txt` });
await call('approved', 'write_file', { path: `${ROOT}/new.txt`, content: 'written after approval' });
await call('declined', 'write_file', { path: `${ROOT}/denied.txt`, content: 'never written' });
await client.close();
