// Roles in the real UI against the real server (issue 12): tokens made with the CLI on the data
// directory before `serve` starts. An operator approves, and is offered no grant, no settings Save
// and no engine Add; an agent's token gets its own page and never asks for the queue; the admin (the
// printed token) sees how many waiting calls a grant approves now, and a grant made with "Leave the
// calls already waiting for me" leaves them pending (checked through the API) and approves a later one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, row, serverBin, startServer, waitFor } from './helpers.mjs';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server;
let browser;
let dataDir;
let operatorToken;
let agentToken;

/** `approval-console tokens add NAME --role ROLE` on the data directory: the token, the last line it prints. */
function tokenFor(dir, name, role) {
  const out = execFileSync(serverBin, ['--data-dir', dir, 'tokens', 'add', name, '--role', role], { encoding: 'utf8' });
  return out.trim().split('\n').at(-1);
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'approval-console-roles-'));
  operatorToken = tokenFor(dataDir, 'alice', 'operator');
  agentToken = tokenFor(dataDir, 'support-bot', 'agent');
  assert.match(operatorToken, /^ac_[0-9a-f]{64}$/);
  assert.match(agentToken, /^ac_[0-9a-f]{64}$/);
  server = await startServer({ dataDir });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Opens the console with `token` in the URL fragment, as the printed address does. */
async function openWith(page, token) {
  await page.goto(`${server.base}/#token=${token}`);
}

async function openConsoleWith(page, token) {
  await openWith(page, token);
  await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="pending-count"]').waitFor();
}

/** axe over the page: no serious or critical violation. */
async function axeClean(page, view) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'landmark-one-main' || v.id === 'region');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${view}: accessibility violations`);
}

async function item(id) {
  const r = await server.api('GET', `/api/queue/${encodeURIComponent(id)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

test('an operator approves a call, and is offered no grant, no settings Save and no engine Add', async () => {
  const call = await server.waitForItem(await server.generate('delete rec-op'));
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  try {
    await openConsoleWith(page, operatorToken);
    const who = page.locator('[data-testid="session"]');
    assert.equal((await who.textContent()).replace(/\s+/g, ' ').trim(), 'Signed in as alice (operator)');
    assert.equal(await who.getAttribute('data-role'), 'operator');

    await row(page, call.id).click();
    const detail = page.locator(`[data-testid="detail"][data-id="${call.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    assert.equal(await detail.locator('[data-testid="approve"]').count(), 1, 'Approve is offered');
    assert.equal(await page.locator('[data-testid="grant-open"], [data-testid="grant"]').count(), 0, 'no "Approve and always allow…"');
    await detail.locator('[data-testid="approve"]').click();
    await detail.locator('[data-testid="approve-confirm"]').click();
    let got;
    await waitFor(async () => {
      got = await item(call.id);
      return got.state !== 'pending';
    }, 'the call to be approved by the operator');
    assert.equal(got.decision.kind, 'approve');
    assert.equal(got.decision.operator, 'alice (web)');

    await page.locator('[data-testid="settings-tab"]').click();
    await page.locator('[data-testid="notify-high-risk"]').waitFor();
    await page.locator('[data-testid="expiry-fields"]').waitFor();
    assert.equal(await page.locator('[data-testid="settings-save"]').count(), 0, 'no Save');
    assert.match(await page.locator('[data-testid="settings-admin-only"]').textContent(), /Only an admin changes them/);
    assert.equal(await page.locator('[data-testid="notify-high-risk"]').evaluate((el) => el.readOnly), true);
    assert.equal(await page.locator('[data-testid="notify-enabled"]').isDisabled(), true);
    assert.equal(await page.locator('[data-testid="expiry-add-rule"]').count(), 0);
    await axeClean(page, 'settings, read-only');

    await page.locator('[data-testid="engines-tab"]').click();
    await page.locator('[data-testid="engines-view"]').waitFor();
    await page.locator('[data-testid="engines-empty"]').waitFor();
    assert.equal(await page.locator('[data-testid="add-engine-form"]').count(), 0, 'no Add engine');
    assert.match(await page.locator('[data-testid="engines-admin-only"]').textContent(), /Only an admin adds, edits or removes engines/);
    await axeClean(page, 'engines, read-only');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("an agent's token gets the agent page and nothing of the queue", async () => {
  const waiting = await server.waitForItem(await server.generate('delete rec-agent-sees-nothing'));
  const { page, problems, close } = await newPage(browser);
  const asked = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/api/')) asked.push(path);
  });
  try {
    await openWith(page, agentToken);
    const agentPage = page.locator('[data-testid="agent-page"]');
    await agentPage.waitFor({ timeout: 15_000 });
    const words = (await agentPage.textContent()).replace(/\s+/g, ' ');
    assert.match(words, /This token is an agent's/);
    assert.match(words, /support-bot/);
    assert.match(words, /approval-console tokens add NAME --role operator/);
    assert.equal(await page.locator('[data-testid="queue-tab"], [data-testid="queue-item"], [data-testid="detail"], [data-testid="pending-count"]').count(), 0);
    assert.equal(await page.getByText('rec-agent-sees-nothing').count(), 0, 'no call shown');
    await axeClean(page, 'agent page');
    assert.deepEqual(asked, ['/api/session'], 'the only API request is who the token is');
    assert.equal((await item(waiting.id)).state, 'pending');
    // "Use a different token" goes back to the token screen.
    await page.locator('[data-testid="agent-other-token"]').click();
    await page.locator('[data-testid="token-screen"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('the admin sees how many waiting calls a grant approves now, and "leave them waiting" leaves them pending', async () => {
  // Settle what earlier tests left: nothing of delete_record may wait but the three calls here.
  const left = (await server.api('GET', '/api/queue?tab=pending&limit=500')).body.items;
  for (const i of left) {
    const r = await server.api('POST', `/api/queue/${encodeURIComponent(i.id)}/decline`, { fingerprint: i.fingerprint });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const calls = [];
  for (const id of ['rec-a1', 'rec-a2', 'rec-a3']) calls.push(await server.waitForItem(await server.generate(`delete ${id}`)));
  const [first] = calls;
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  try {
    await page.goto(server.url);
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
    assert.match(await page.locator('[data-testid="session"]').textContent(), /Signed in as you \(.+, this computer's admin\)/);
    await row(page, first.id).click();
    const detail = page.locator(`[data-testid="detail"][data-id="${first.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    await detail.locator('[data-testid="grant-open"]').click();
    const form = detail.locator('[data-testid="grant-form"]');
    const waiting = form.locator('[data-testid="grant-waiting"]');
    await form.locator('[data-testid="grant-waiting"][data-state="counted"]').waitFor();
    // The narrowest scope first, this run: this call alone.
    assert.equal(await waiting.getAttribute('data-count'), '1');
    assert.equal((await waiting.textContent()).trim(), 'Approves this call.');
    await form.locator('[data-testid="grant-scope-agent"]').check();
    await waitFor(
      async () => (await waiting.getAttribute('data-count')) === '3' && (await waiting.textContent()).trim().startsWith('Approves this call and 2 more waiting now.'),
      'the count for the agent',
    );
    await axeClean(page, 'grant form with its count');

    await form.locator('[data-testid="grant-leave-waiting"]').check();
    assert.match(await waiting.textContent(), /Approves no call now: the calls already waiting stay for you, this one too/);
    await form.locator('[data-testid="grant-save"]').click();
    // Confirmed once, briefly: it approves no call waiting now.
    await form.locator('[data-testid="grant-confirm-yes"]').click();
    const made = detail.locator('[data-testid="grant-made-count"]');
    await made.waitFor();
    assert.equal(await made.getAttribute('data-count'), '0');
    assert.match(await made.textContent(), /It approved no call waiting\. The calls already waiting stay for you\./);

    const grants = (await server.api('GET', '/api/grants')).body;
    assert.equal(grants.length, 1, JSON.stringify(grants));
    assert.ok(grants[0].appliesFrom, 'stored as a grant for later calls');
    // The waiting calls stay pending: watched for longer than the grants worker takes to act.
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      for (const c of calls) assert.equal((await item(c.id)).state, 'pending', `${c.id} is left waiting`);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(await detail.locator('[data-testid="approve"]').count(), 1, 'this call still waits for a decision');
    // A later call is approved by the grant.
    const later = await server.waitForItem(await server.generate('delete rec-a4'));
    let got;
    await waitFor(async () => {
      got = await item(later.id);
      return got.state === 'delivered';
    }, 'the later call to be approved through the grant', 15_000);
    assert.ok(got.decision.operator.startsWith('grant '), `decided by ${got.decision.operator}`);
    for (const c of calls) assert.equal((await item(c.id)).state, 'pending', `${c.id} is still waiting`);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
