// Time limits in the real UI against the real server (whose expiry worker runs in `serve`): a limit set
// in Settings declines a call nobody decides, and the console shows it under Expired as expired.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser } from './helpers.mjs';

const ctx = serverAndBrowser();

test('a 1 s time limit set in Settings expires a paused call, shown under Expired with the expiry text', async () => {
  const { server, browser } = ctx;
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    await openConsole(page, server);
    await page.locator('[data-testid="settings-tab"]').click();
    const limits = page.locator('[data-testid="expiry-fields"]');
    await limits.waitFor({ timeout: 15_000 });
    await limits.locator('[data-testid="expiry-add-rule"]').click();
    const rule = limits.locator('[data-testid="expiry-rule"]').last();
    await rule.locator('[data-testid="expiry-rule-tool"]').fill('delete_record');
    await rule.locator('[data-testid="expiry-rule-amount"]').fill('1');
    await rule.locator('[data-testid="expiry-rule-unit"]').selectOption('seconds');
    // One Save for every setting the console keeps.
    await page.locator('[data-testid="settings-save"]').click();
    await page.locator('[data-testid="settings-saved"]').waitFor();
    assert.deepEqual((await server.api('GET', '/api/settings/expiry')).body.rules, [{ tool: 'delete_record', afterSecs: 1 }]);

    const item = await server.waitForItem(await server.generate('delete rec-5'));
    await page.locator('[data-testid="queue-tab"]').click();
    await page.locator('[data-testid="state-tab"][data-tab="expired"]').click();
    await row(page, item.id).waitFor({ timeout: 20_000 });
    await row(page, item.id).click();
    const result = page.locator(`[data-testid="detail"][data-id="${item.id}"] [data-testid="decision-result"]`);
    await result.waitFor();
    assert.equal((await result.locator('[data-testid="decision-kind"]').textContent()).trim(), 'Expired after 1 s — nobody decided');
    assert.equal(await result.getAttribute('data-expired'), 'true');
    const stored = (await server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
    assert.equal(stored.decision.expiredAfterSecs, 1);
    assert.equal(stored.tab, 'expired');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
