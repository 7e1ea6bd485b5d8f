// Scenario (d): arguments crafted as HTML are shown as text and never run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser } from './helpers.mjs';

const ctx = serverAndBrowser();

test('a hostile argument renders as text and its script never runs', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    const hostile = '<img src=x onerror="window.__pwned=1">';
    const gen = await ctx.server.generate(`delete ${hostile}`);
    assert.equal(gen.suspendPayload.args.id, hostile);
    const item = await ctx.server.waitForItem(gen);

    const r = row(page, item.id);
    await r.waitFor({ timeout: 15_000 });
    await r.click();
    const tree = page.locator('[data-testid="args-tree"]');
    await tree.waitFor();
    assert.ok((await tree.textContent()).includes(hostile), 'the tree shows the argument as text');

    await page.locator('[data-testid="raw-toggle"]').click();
    const raw = page.locator('[data-testid="args-raw"]');
    await raw.waitFor();
    assert.ok((await raw.textContent()).includes(JSON.stringify(hostile).slice(1, -1)), 'the raw view shows it as text');

    // No <img> element exists anywhere, so no onerror handler can ever fire.
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
