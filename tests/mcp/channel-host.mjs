// The official MCP TypeScript SDK's client acting as Claude Code does towards a channel server
// (tests/mcp/channel.rs runs it against `approval-console channel claude-code` and decides in the
// console meanwhile): it connects, prints the server's experimental capabilities, sends each prompt
// of PROMPTS (JSON: the params of `notifications/claude/channel/permission_request`) as Claude Code
// relays a permission dialog (and each line of its stdin, one prompt's params each, as it comes),
// then prints every notification the server sends back, one JSON line each (with when its prompt
// was relayed and when it came, in ms since the epoch), until EXPECT
// `notifications/claude/channel/permission` came.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createInterface } from 'node:readline';

const { CHANNEL_BIN } = process.env;
const prompts = JSON.parse(process.env.PROMPTS ?? '[]');
const expect = Number(process.env.EXPECT ?? prompts.length);
const say = (step, value) => process.stdout.write(JSON.stringify({ step, ...value }) + '\n');

const transport = new StdioClientTransport({
  command: CHANNEL_BIN,
  args: ['channel', 'claude-code', '--timeout', process.env.CHANNEL_TIMEOUT ?? '60'],
  env: { ...process.env, APPROVAL_CONSOLE_LOG: 'warn' },
  stderr: 'inherit',
});
const client = new Client({ name: 'claude-code', version: '2.1.81' });
let answered = 0;
const sent = new Map(); // request_id → when it was relayed (ms since the epoch), for the figures
const done = new Promise((resolve) => {
  client.fallbackNotificationHandler = async (notification) => {
    const sentAt = sent.get(notification.params?.request_id) ?? null;
    say('notification', { method: notification.method, params: notification.params ?? null, sentAt, at: Date.now() });
    if (notification.method === 'notifications/claude/channel/permission' && ++answered >= expect) resolve();
  };
  if (expect === 0) resolve();
});
await client.connect(transport);
say('capabilities', { experimental: client.getServerCapabilities()?.experimental ?? null });
const relay = (params) => {
  sent.set(params.request_id, Date.now());
  return client.notification({ method: 'notifications/claude/channel/permission_request', params });
};
for (const params of prompts) await relay(params);
const more = createInterface({ input: process.stdin });
more.on('line', (line) => line.trim() && relay(JSON.parse(line)));
await done;
more.close();
await client.close();
