// "Always allow" grants in the real UI against the real server (whose grants worker runs in `serve`):
// a grant made from a paused demo call approves the next matching call without an operator; once
// revoked, a later call waits again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('a grant made in the detail approves the next call by itself, and after revoking it a call waits again', async () => {
  const { server, browser } = ctx;
  const first = await server.waitForItem(await server.generate('delete rec-1'));
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    await openConsole(page, server);
    await row(page, first.id).click();
    const detail = page.locator(`[data-testid="detail"][data-id="${first.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    await detail.locator('[data-testid="grant-open"]').click();
    const form = detail.locator('[data-testid="grant-form"]');
    await form.waitFor();
    assert.equal(await form.locator('[data-testid="grant-fingerprint"]').textContent(), first.fingerprint, 'the fingerprint on screen');
    // The narrowest scope by default (this run); this test allows every delete of the agent.
    assert.match(await form.locator('[data-testid="grant-preview"]').textContent(), /every delete_record call of run .* \(agent demo on engine local\)/);
    await form.locator('[data-testid="grant-scope-agent"]').check();
    assert.match(await form.locator('[data-testid="grant-preview"]').textContent(), /every delete_record call of agent demo on engine local/);
    // Offered as a condition, left unticked: every delete of this agent.
    assert.equal(await form.locator('[data-testid="grant-condition"][data-key="id"]').count(), 1);
    await form.locator('[data-testid="grant-save"]').click();
    // The confirm step lists the calls it approves now (this one) before anything is made.
    const confirm = form.locator('[data-testid="grant-confirm-yes"]');
    await confirm.waitFor();
    assert.equal(await form.locator(`[data-testid="grant-confirm-list"] [data-testid="grant-waiting-call"][data-id="${first.id}"]`).count(), 1);
    assert.equal((await server.api('GET', '/api/grants')).body.length, 0, 'no grant before the confirm');
    await confirm.click();
    await detail.locator('[data-testid="grant-made"]').waitFor();

    const grants = (await server.api('GET', '/api/grants')).body;
    assert.equal(grants.length, 1, JSON.stringify(grants));
    assert.deepEqual([grants[0].scope, grants[0].toolName, grants[0].agentId, grants[0].conditions], ['agent', 'delete_record', 'demo', []]);

    // A second call is approved and delivered with no one deciding.
    const second = await server.waitForItem(await server.generate('delete rec-2'));
    let got;
    await waitFor(async () => {
      got = (await server.api('GET', `/api/queue/${encodeURIComponent(second.id)}`)).body;
      return got.state === 'delivered';
    }, 'the second call to be delivered through the grant', 15_000);
    assert.ok(got.decision.operator.startsWith('grant '), `decided by ${got.decision.operator}`);
    assert.equal(got.decision.kind, 'approve');

    // Revoke it in the Grants view, through its confirm step.
    await page.locator('[data-testid="grants-tab"]').click();
    const card = page.locator(`[data-testid="grant-row"][data-id="${grants[0].id}"]`);
    await card.waitFor();
    await waitFor(async () => Number(await card.locator('[data-testid="grant-uses"]').textContent()) >= 1, 'the grant to count its use', 15_000);
    await card.locator('[data-testid="revoke"]').click();
    await card.locator('[data-testid="revoke-confirm-yes"]').click();
    await waitFor(async () => (await card.getAttribute('data-state')) === 'revoked', 'the grant to show as revoked');
    assert.ok((await server.api('GET', '/api/grants')).body[0].revokedAt, 'revoked on the server');

    // A third call waits for a decision: watched for longer than the grants worker takes to act.
    const third = await server.waitForItem(await server.generate('delete rec-3'));
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      const now = (await server.api('GET', `/api/queue/${encodeURIComponent(third.id)}`)).body;
      assert.equal(now.state, 'pending', 'the third call is not approved by a revoked grant');
      await new Promise((r) => setTimeout(r, 250));
    }
    await page.locator('[data-testid="queue-tab"]').click();
    await row(page, third.id).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
