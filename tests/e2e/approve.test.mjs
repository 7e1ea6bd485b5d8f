// Scenario (a): a call paused by the engine appears live, shows its fingerprint, is approved from
// the UI, leaves the pending list, and is in the audit log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('a paused call appears without reload, is approved, leaves the list and is audited', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    // The token left the address bar.
    assert.equal(await page.evaluate(() => location.hash), '');
    assert.equal(await page.locator('[data-testid="pending-count"]').textContent(), '0');
    await page.evaluate(() => (window.__sameDocument = true));

    const gen = await ctx.server.generate('delete rec-1');
    assert.equal(gen.finishReason, 'suspended');
    assert.equal(gen.suspendPayload.toolName, 'delete_record');
    const item = await ctx.server.waitForItem(gen);

    const r = row(page, item.id);
    await r.waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');
    // The row and the tab counts are two requests after the same event: the count follows the row.
    const pending = () => page.locator('[data-testid="pending-count"]').textContent();
    await waitFor(async () => (await pending()) === '1', 'the pending count to say 1');
    // Newest first: the new call is the first row.
    assert.equal(await page.locator('[data-testid="queue-item"]').first().getAttribute('data-id'), item.id);

    await r.click();
    const detail = page.locator('[data-testid="detail"]');
    await detail.waitFor();
    const fromApi = (await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
    assert.match(fromApi.fingerprint, /^sha256:[0-9a-f]{64}$/);
    assert.equal(await detail.locator('[data-testid="fingerprint-full"]').textContent(), fromApi.fingerprint);
    assert.equal(await detail.locator('[data-testid="fingerprint-short"]').textContent(), fromApi.fingerprint.slice(7, 19));
    assert.equal(await detail.locator('[data-testid="detail-tool"]').textContent(), 'delete_record');
    assert.match(await detail.locator('[data-testid="args-tree"]').textContent(), /rec-1/);
    // The fingerprint is the detail's (issue 45: the row's meta line is agent · source · how long ago).
    assert.doesNotMatch(await r.textContent(), new RegExp(fromApi.fingerprint.slice(7, 19)));

    // Approve asks first (every tool): nothing is sent until the confirm step's button.
    await detail.locator('[data-testid="approve"]').click();
    await detail.locator('[data-testid="approve-confirm"]').waitFor();
    assert.equal((await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body.state, 'pending');
    await detail.locator('[data-testid="approve-confirm"]').click();
    await page.locator('[data-testid="decision-result"]').waitFor();
    assert.match(await page.locator('[data-testid="decision-result"]').textContent(), /Approved/);
    await waitFor(async () => (await r.count()) === 0, 'the approved row to leave the pending list');
    await waitFor(async () => (await pending()) === '0', 'the pending count to say 0 again');

    const decided = (await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
    assert.equal(decided.decision.kind, 'approve');
    assert.equal(decided.decision.fingerprint ?? fromApi.fingerprint, fromApi.fingerprint);

    await page.locator('[data-testid="audit-tab"]').click();
    const entry = page.locator(`[data-testid="audit-entry"][data-item-id="${item.id}"]`);
    await entry.first().waitFor({ timeout: 15_000 });
    assert.match(await entry.first().textContent(), /delete_record/);
    assert.ok(
      (await entry.evaluateAll((els) => els.map((e) => e.getAttribute('data-action')))).some((a) => /approve/.test(a)),
      'an audit entry records the approval',
    );

    await page.locator('[data-testid="verify-audit"]').click();
    const result = page.locator('[data-testid="verify-result"]');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-ok'), 'true');

    await page.locator('[data-testid="queue-tab"]').click();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('without a token the page asks for one, and a pasted token opens the console', async () => {
  const { page, close } = await newPage(ctx.browser);
  try {
    await page.goto(ctx.server.base + '/');
    const screen = page.locator('[data-testid="token-screen"]');
    await screen.waitFor();
    assert.match(await screen.textContent(), /approval-console serve/);
    await page.locator('#token-input').fill(ctx.server.url);
    await page.getByRole('button', { name: 'Open console' }).click();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
    assert.equal(await screen.count(), 0);
  } finally {
    await close();
  }
});

test('the printed URL pasted into a tab open on the bare address (only the fragment changes) opens the console and leaves the address bar', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await page.goto(ctx.server.base + '/');
    const screen = page.locator('[data-testid="token-screen"]');
    await screen.waitFor();
    await page.evaluate(() => (window.__sameDocument = true));
    // What the address bar does with a pasted URL that differs only in its fragment: no new load, a hashchange.
    await page.goto(ctx.server.url);
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
    assert.equal(await screen.count(), 0);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was not loaded again');
    assert.equal(await page.evaluate(() => location.hash), '', 'the token left the address bar');
    assert.equal(page.url(), ctx.server.base + '/');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('approval-console.token')), ctx.server.token);
    // A reload of the tab keeps it (sessionStorage), the address still without it.
    await page.reload();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate(() => location.hash), '');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a wrong token shows the unauthorized banner', async () => {
  const { page, close } = await newPage(ctx.browser);
  try {
    await page.goto(`${ctx.server.base}/#token=wrong-${ctx.server.token}`);
    const banner = page.locator('[data-testid="error-banner"][data-code="unauthorized"]');
    await banner.first().waitFor({ timeout: 15_000 });
    assert.equal(await banner.first().getAttribute('role'), 'alert');
  } finally {
    await close();
  }
});
