// What changed since the last decision: two calls of one tool in one thread; the first declined,
// the second shows its decision and the changed argument, before and now, in English and Japanese.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

async function inThread(content) {
  const r = await ctx.server.api('POST', '/api/agents/demo/generate', {
    messages: [{ role: 'user', content }],
    memory: { thread: 'th-prev', resource: 'ops' },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return ctx.server.waitForItem(r.body);
}

test('a call shows what changed since the last decision on its tool in its thread', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    const first = await inThread('delete rec-1');
    const declined = await ctx.server.api('POST', `/api/queue/${encodeURIComponent(first.id)}/decline`, { fingerprint: first.fingerprint, reason: 'wrong record' });
    assert.equal(declined.status, 200);
    const second = await inThread('delete rec-2');

    await row(page, second.id).click();
    const since = page.locator('[data-testid="detail"] [data-testid="since-last"]');
    await since.waitFor();
    assert.equal(await since.getAttribute('data-previous'), first.id);
    const said = await since.locator('[data-testid="since-last-decision"]').textContent();
    assert.match(said, /Declined by/);
    assert.match(said, /wrong record/);
    const change = since.locator('[data-testid="since-last-change"]');
    assert.equal(await change.count(), 1);
    assert.equal(await change.getAttribute('data-pointer'), '/id');
    assert.equal(await change.locator('.before').textContent(), '"rec-1"');
    assert.equal(await change.locator('.after').textContent(), '"rec-2"');

    // The same in Japanese, at once.
    await page.evaluate(() => localStorage.setItem('approval-console.language', 'ja'));
    await page.reload();
    await row(page, second.id).click();
    await waitFor(async () => (await page.locator('[data-testid="since-last"] h4').textContent().catch(() => '')) === 'このスレッドでの前回の判断からの変化', 'the Japanese heading');
    assert.match(await page.locator('[data-testid="since-last-decision"]').textContent(), /が拒否/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
