// Issue 45's queue: 17 mixed calls from five sources (the local engine's demo agent, an HTTP agent,
// Claude Code's and Codex's hooks, the MCP gate), submitted as those connectors submit them
// (`POST /api/calls` with an agent credential), one of them under the two-person rule with its first
// approval given by another operator ("1/2 · alice"). Not a test: the desk tests and the measuring
// script seed their server with it.
import assert from 'node:assert/strict';
import { request } from './helpers.mjs';

/** Tool names as long as a row must keep whole (24 characters). */
export const LONGEST_TOOL = 'rotate_production_secret';

/** The quorum tool: two operators approve each of its calls. */
export const QUORUM_TOOL = 'transfer_funds';

/** A file of 48 lines; the Edit changes 30 of them and the Write makes one of 60: diffs longer than a window. */
const EDIT_BEFORE = Array.from({ length: 48 }, (_, i) => `limit_${i} = ${i * 100}\n`).join('');
const EDIT_OLD = Array.from({ length: 30 }, (_, i) => `limit_${i + 9} = ${(i + 9) * 100}\n`).join('');
const EDIT_NEW = Array.from({ length: 30 }, (_, i) => `limit_${i + 9} = ${(i + 9) * 1000}\n`).join('');
const NOTES = Array.from({ length: 60 }, (_, i) => `- note ${i + 1}\n`).join('');

/** A Claude Code Edit of 30 lines of a file the hook read: its diff is longer than a window. */
export const LONG_EDIT = {
  tool: 'Edit',
  args: { file_path: '/home/dev/project/src/pay.py', old_string: EDIT_OLD, new_string: EDIT_NEW },
  agent: 'claude-code',
  source: 'claude-code',
  context: { event: 'PreToolUse', cwd: '/home/dev/project', file: { path: '/home/dev/project/src/pay.py', exists: true, text: EDIT_BEFORE } },
};

/** A Claude Code Write of a new file of 60 lines: as long. */
export const LONG_WRITE = { tool: 'Write', args: { file_path: '/home/dev/project/NOTES.md', content: NOTES }, agent: 'claude-code', source: 'claude-code', context: { event: 'PreToolUse', cwd: '/home/dev/project' } };

/** The calls submitted over `POST /api/calls` (the agent names are the credential's `agents`). */
export const SUBMITTED = [
  { tool: QUORUM_TOOL, args: { from: 'ops-main', to: 'acme-supplies', amount: 1250, currency: 'EUR' }, agent: 'billing-bot', context: { why: 'Pay invoice INV-2024-0042, due today' } },
  { tool: 'send_money', args: { to: 'j.doe@example.com', amount: 40, note: 'lunch\n' }, agent: 'billing-bot' },
  // A Cyrillic "а" in the payee and a right-to-left override in a file name.
  { tool: 'update_payee', args: { payee: 'Acme Supplies B.V. (p\u0430yments)', iban: 'NL91ABNA0417164300', attachment: 'invoice-\u202Efdp.exe' }, agent: 'billing-bot' },
  { tool: 'run_sql', args: { database: 'orders-prod', host: 'db-3.internal', query: 'DELETE FROM carts WHERE updated_at < now() - interval \'90 days\'' }, agent: 'billing-bot', context: { reason: 'Nightly clean-up of abandoned carts' } },
  { tool: 'refund_order', args: { order: 'ord-5521', amount: 129.9 }, agent: 'billing-bot' },
  { tool: LONGEST_TOOL, args: { secret: 'stripe-live-key', notify: ['ops@example.com'] }, agent: 'billing-bot' },
  { tool: 'Bash', args: { command: 'kubectl --context prod delete deployment checkout-api', description: 'Remove the old deployment' }, agent: 'claude-code', source: 'claude-code', context: { event: 'PreToolUse', cwd: '/home/dev/infra' } },
  { tool: 'Bash', args: { command: 'git push --force origin main', description: 'Publish the rebased branch' }, agent: 'claude-code', source: 'claude-code', context: { event: 'PreToolUse', cwd: '/home/dev/shop' } },
  LONG_EDIT,
  LONG_WRITE,
  { tool: 'shell', args: { command: ['rm', '-rf', 'build', 'dist'] }, agent: 'codex', source: 'codex', context: { event: 'PreToolUse', cwd: '/home/dev/app' } },
  { tool: 'apply_patch', args: { input: '*** Begin Patch\n*** Update File: src/main.rs\n@@\n-fn main() {}\n+fn main() { run() }\n*** End Patch' }, agent: 'codex', source: 'codex', context: { event: 'PreToolUse', cwd: '/home/dev/app' } },
  { tool: 'move_file', args: { source: '/home/dev/notes/draft.md', destination: '/home/dev/notes/archive/draft.md' }, agent: 'server-filesystem', source: 'mcp', context: { upstream: 'npx -y @modelcontextprotocol/server-filesystem /home/dev/notes' } },
  { tool: 'write_file', args: { path: '/home/dev/notes/plan.md', content: '# Q1 plan' }, agent: 'server-filesystem', source: 'mcp', context: { upstream: 'npx -y @modelcontextprotocol/server-filesystem /home/dev/notes' } },
];

/** The local engine's demo agent: `generate` messages that pause (two approvals and a question). */
export const LOCAL = ['delete rec-1', 'delete cust-11', 'ask Which region should the backup go to?'];

/** `approval-console tokens`, over the API: a credential's secret. */
async function token(server, body) {
  const res = await server.api('POST', '/api/tokens', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

/** A request with another credential than the session token. */
export const as = (server, secret, method, path, body) => request(server.base, secret, method, path, body);

/**
 * Seeds the 17 calls: the quorum rule first, then the submitted ones (an agent credential), the
 * local ones, and alice's approval of the quorum call. Answers the ids by tool name (two `Bash`
 * and two `delete_record`: by their order, `Bash#2` the second), all ids in the order submitted,
 * and the secrets of the agents' credential and alice's.
 */
export async function seedDesk(server) {
  const quorum = await server.api('PUT', '/api/settings/quorum', { rules: [{ tool: QUORUM_TOOL, approvals: 2 }] });
  assert.equal(quorum.status, 200, JSON.stringify(quorum.body));
  const agents = await token(server, { name: 'desk-agents', role: 'agent', agents: ['billing-bot', 'claude-code', 'codex', 'server-filesystem'] });
  const alice = await token(server, { name: 'alice', role: 'operator' });
  const ids = {};
  const all = [];
  const name = (tool) => {
    let key = tool;
    for (let n = 2; key in ids; n++) key = `${tool}#${n}`;
    return key;
  };
  for (const call of SUBMITTED) {
    const res = await as(server, agents, 'POST', '/api/calls', call);
    assert.equal(res.status, 201, `${call.tool}: ${JSON.stringify(res.body)}`);
    ids[name(call.tool)] = res.body.id;
    all.push(res.body.id);
  }
  for (const message of LOCAL) {
    const item = await server.waitForItem(await server.generate(message));
    ids[name(item.toolName)] = item.id;
    all.push(item.id);
  }
  const q = (await server.api('GET', `/api/queue/${ids[QUORUM_TOOL]}`)).body;
  const first = await as(server, alice, 'POST', `/api/queue/${ids[QUORUM_TOOL]}/approve`, { fingerprint: q.fingerprint });
  assert.equal(first.status, 202, JSON.stringify(first.body)); // recorded, the call still waits
  assert.equal(first.body.state, 'pending', 'one approval of two: the call still waits');
  assert.equal(all.length, 17);
  return { ids, all, tokens: { agents, alice } };
}

/**
 * Clicks the row of `id` in the queue list, scrolling the list (it renders only the rows in view)
 * from the top until the row is there.
 */
export async function clickRow(page, id) {
  const scroller = page.locator('[data-testid="queue-scroller"]');
  const target = page.locator(`[data-testid="queue-item"][data-id="${id}"]`);
  // On a phone a call has the screen to itself: back to the list first.
  const back = page.locator('[data-testid="back-to-list"]');
  if (await back.isVisible()) await back.click();
  await scroller.evaluate((el) => (el.scrollTop = 0));
  for (let step = 0; step < 200; step++) {
    if (await target.count()) {
      try {
        await target.click({ timeout: 2000 });
        return;
      } catch {
        // Rendered again meanwhile (the list renders the rows in view): look again.
        continue;
      }
    }
    // Half a screen further down (at the end: the same place, while more calls load).
    await scroller.evaluate((el) => (el.scrollTop += Math.max(40, el.clientHeight / 2)));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  }
  throw new Error(`no row ${id} in the list`);
}
