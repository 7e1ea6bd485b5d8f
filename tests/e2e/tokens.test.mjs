// Issue 25: an admin makes a token in Settings → Tokens, in chromium against the real server: the
// token is shown once, works at once with its role, is listed without it, and stops working when
// revoked from the same screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

async function as(server, token, method, path, body) {
  const res = await fetch(server.base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status;
}

test('a token made in Settings works at once, is shown once and stops when revoked there', async () => {
  const { server, browser } = ctx;
  const { page, problems, close } = await newPage(browser);
  try {
    await openConsole(page, server);
    await page.locator('[data-testid="settings-tab"]').click();
    const section = page.locator('[data-testid="token-settings"]');
    await section.waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="token-name"]').fill('e2e-bot');
    await page.locator('[data-testid="token-role"]').selectOption('agent');
    await page.locator('[data-testid="token-make"]').click();
    const secretEl = page.locator('[data-testid="token-made-secret"]');
    await secretEl.waitFor();
    const secret = (await secretEl.textContent()).trim();
    assert.match(secret, /^ac_[0-9a-f]{64}$/);

    // An agent's token: it starts runs, and the console's own routes refuse it.
    const body = { messages: [{ role: 'user', content: 'look up rec-1' }] };
    assert.equal(await as(server, secret, 'POST', '/api/agents/demo/generate', body), 200);
    assert.equal(await as(server, secret, 'GET', '/api/queue'), 403);

    const row = page.locator('[data-testid="token-row"][data-name="e2e-bot"]');
    await row.waitFor();
    assert.ok(!(await page.locator('[data-testid="tokens-list"]').textContent()).includes(secret), 'the list never shows the token');
    await page.locator('[data-testid="token-made-done"]').click();
    assert.equal(await page.locator('[data-testid="token-made"]').count(), 0);
    assert.ok(!(await page.content()).includes(secret), 'gone from the page once dismissed');
    // Listed by the server too (the page is not the only one who knows).
    const listed = await server.api('GET', '/api/tokens');
    assert.deepEqual(listed.body.map((c) => c.name), ['e2e-bot']);

    await row.locator('[data-testid="token-revoke"]').click();
    await page.locator('[data-testid="token-revoke-confirm"]').click();
    await waitFor(async () => (await page.locator('[data-testid="token-row"]').count()) === 0, 'the revoked token leaves the list');
    assert.match(await page.locator('[data-testid="token-revoked"]').textContent(), /Revoked e2e-bot/);
    assert.equal(await as(server, secret, 'POST', '/api/agents/demo/generate', body), 401);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
