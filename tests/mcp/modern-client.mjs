// The official MCP TypeScript SDK 2.x client driving `approval-console mcp-gate` (tests/mcp/modern.rs
// runs it and decides in the console meanwhile). ERA picks the revision it speaks: `modern` pins
// 2026-07-28 (server/discover, no initialize), `legacy` the revisions with initialize. PLAN (JSON):
// `gateArgs`, the gate's own flags; `upstream`, the upstream's command; `calls`, [step, tool,
// arguments] each, run one after the other — or, with `together: true`, all at once. Prints one
// JSON line per step on stdout: the tool list, each elicitation the gate sent (its mode, URL and
// message), then each call's result as the client got it.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const { GATE_BIN, ERA } = process.env;
const plan = JSON.parse(process.env.PLAN);
const say = (step, value) => process.stdout.write(JSON.stringify({ step, ...value }) + '\n');

const transport = new StdioClientTransport({
  command: GATE_BIN,
  args: ['mcp-gate', ...plan.gateArgs, '--', ...plan.upstream],
  env: { ...process.env, APPROVAL_CONSOLE_LOG: 'warn' },
  stderr: 'inherit',
});
const client = new Client(
  { name: 'gate-test-client-v2', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {}, url: {} } },
    versionNegotiation: { mode: ERA === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    // The gate answers `input_required` each --hold while the operator has not decided.
    inputRequired: { maxRounds: 10_000 },
  },
);
// The gate's "decide it in the console" request: noted, then accepted (call again) a moment later.
client.setRequestHandler('elicitation/create', async (request) => {
  const { mode, url, message } = request.params;
  say('elicit', { mode: mode ?? 'form', url: url ?? null, message });
  await new Promise((r) => setTimeout(r, 100));
  return { action: 'accept', content: mode === 'url' ? undefined : {} };
});
await client.connect(transport);

const { tools } = await client.listTools();
say('tools', { tools: tools.map((t) => t.name) });
const call = async (step, name, args) => {
  // With TIMES set (bench/mcp-gate-pause: pause → queue row), when each call was made.
  if (process.env.TIMES) say('calling', { call: step, at: new Date().toISOString() });
  const result = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  say(step, { isError: result.isError === true, text: result.content.map((c) => c.text ?? '').join('\n') });
};
if (plan.together) await Promise.all(plan.calls.map(([step, name, args]) => call(step, name, args)));
else for (const [step, name, args] of plan.calls) await call(step, name, args);
await client.close();
process.exit(0);
