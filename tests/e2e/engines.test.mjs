// Remote engines in the UI: add one where nothing listens, see it unreachable with its error after
// "Sync now", remove it through the confirm step. Nothing is mocked: the server really tries to connect.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

// Port 9 (discard) on loopback: nothing listens there, so connections are refused at once.
const DEAD_URL = 'http://127.0.0.1:9';

test('an engine where nothing listens is listed as unreachable with its error, and can be removed', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    await page.locator('[data-testid="engines-tab"]').click();
    await page.locator('[data-testid="engines-view"]').waitFor();
    await page.locator('[data-testid="engines-empty"]').waitFor();

    await page.getByLabel(/^Name/).fill('nowhere');
    await page.getByLabel(/^Base URL/).fill(DEAD_URL);
    assert.equal(await page.locator('[data-testid="add-engine-token"]').getAttribute('type'), 'password');
    assert.equal(await page.locator('[data-testid="add-engine-poll"]').inputValue(), '1000');
    await page.locator('[data-testid="add-engine-submit"]').click();

    const card = page.locator('[data-testid="engine"][data-name="nowhere"]');
    await card.waitFor({ timeout: 15_000 });
    assert.equal(await card.locator('[data-testid="engine-url"]').textContent(), DEAD_URL);
    assert.equal(await card.locator('[data-testid="engine-token"]').textContent(), 'no token');

    await card.locator('[data-testid="engine-sync"]').click();
    const syncError = card.locator('[data-testid="engine-sync-error"]');
    await syncError.waitFor({ timeout: 30_000 });
    assert.equal(await syncError.getAttribute('data-code'), 'engine_unreachable');
    assert.ok((await syncError.locator('[data-testid="engine-sync-error-message"]').textContent()).trim().length > 0, 'the server says why');

    await waitFor(async () => (await card.getAttribute('data-health')) === 'unreachable', 'the engine to show as unreachable');
    assert.equal((await card.locator('[data-testid="engine-health"]').textContent()).trim(), 'unreachable');
    const lastError = (await card.locator('[data-testid="engine-last-error"]').textContent()).trim();
    assert.ok(lastError.length > 0, 'a last error is shown');
    await card.locator('[data-testid="engine-last-error-at"]').waitFor();

    // The API agrees.
    const listed = (await ctx.server.api('GET', '/api/engines')).body;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].health.state, 'unreachable');

    // Remove: nothing happens before the confirm step.
    await card.locator('[data-testid="engine-remove"]').click();
    const confirm = card.locator('[data-testid="engine-remove-confirm"]');
    await confirm.waitFor();
    assert.equal((await ctx.server.api('GET', '/api/engines')).body.length, 1);
    // Focus moved to the confirm button; Enter confirms.
    assert.equal(await confirm.evaluate((el) => el === document.activeElement), true);
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await page.locator('[data-testid="engines-empty"]').waitFor();
    assert.deepEqual((await ctx.server.api('GET', '/api/engines')).body, []);

    // The browser logs the refused sync (503 engine_unreachable) as a failed resource load: expected.
    const expected = /^console\.error: Failed to load resource: the server responded with a status of 503\b/;
    assert.deepEqual(problems.filter((p) => !expected.test(p)), []);
  } finally {
    await close();
  }
});
