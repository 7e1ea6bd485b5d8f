// Scenario (b): declining with a reason records the decline and the reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('declining with a reason sends the reason and the audit log records the decline', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    const item = await ctx.server.waitForItem(await ctx.server.generate('delete rec-2'));
    const r = row(page, item.id);
    await r.waitFor({ timeout: 15_000 });
    await r.click();
    const detail = page.locator('[data-testid="detail"]');
    await detail.locator('[data-testid="decline-reason"]').fill('not today');
    await detail.locator('[data-testid="decline"]').click();

    await page.locator('[data-testid="decision-result"]').waitFor();
    assert.match(await page.locator('[data-testid="decision-result"]').textContent(), /Declined[\s\S]*not today/);
    await waitFor(async () => (await r.count()) === 0, 'the declined row to leave the pending list');

    const decided = (await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
    assert.equal(decided.decision.kind, 'decline');
    assert.equal(decided.decision.reason, 'not today');

    await page.locator('[data-testid="audit-tab"]').click();
    const entries = page.locator(`[data-testid="audit-entry"][data-item-id="${item.id}"]`);
    await entries.first().waitFor({ timeout: 15_000 });
    const actions = await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-action')));
    assert.ok(actions.some((a) => /decline/.test(a)), `audit actions ${JSON.stringify(actions)} include a decline`);

    const audit = (await ctx.server.api('GET', '/api/audit?limit=50')).body;
    const declineEntry = audit.entries.find((e) => e.queueItemId === item.id && /decline/.test(e.action));
    assert.ok(declineEntry, 'the API audit log has the decline');
    assert.match(JSON.stringify(declineEntry.details), /not today/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
