// Issue 13: a newcomer tells calls apart at a glance. In the real UI against the real server: four
// delete_record calls with different ids read differently in their rows (the arguments in one line,
// with the date and time), a suspended call's row reads its question, and decided calls say what
// became of them and by whom, in the Decided tab's rows and in one sentence in the detail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();
const squash = (s) => s.replace(/\s+/g, ' ').trim();

test('rows tell four delete_record calls apart, read a question, and say what became of decided calls', async () => {
  const { server, browser } = ctx;
  const ids = {};
  for (const id of ['rec-1', 'rec-2', 'prod-7', 'cust-11']) ids[id] = (await server.waitForItem(await server.generate(`delete ${id}`))).id;
  const ask = await server.waitForItem(await server.generate('ask Which region should the backup go to?'));
  // A hidden character and a look-alike: marked in the row as in the detail.
  const hidden = await server.waitForItem(await server.generate('delete invoice-\u202E2400-\u0430dmin'));

  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  try {
    await openConsole(page, server);
    const summary = (id) => row(page, id).locator('[data-testid="queue-item-summary"]');
    for (const id of Object.values(ids)) await row(page, id).waitFor({ timeout: 15_000 });
    const texts = await Promise.all(Object.values(ids).map(async (id) => squash(await summary(id).textContent())));
    assert.deepEqual(texts, ['id: "rec-1"', 'id: "rec-2"', 'id: "prod-7"', 'id: "cust-11"']);
    // Every row is delete_record: only the summary tells them apart, and it is in view (not cut away).
    for (const id of Object.values(ids)) {
      assert.equal(squash(await row(page, id).locator('.tool').textContent()), 'delete_record');
      assert.ok(await summary(id).isVisible());
    }
    // How long it waited (issue 45: `4m ago`); the date, not only the time, in its title.
    const now = new Date();
    const time = row(page, ids['rec-1']).locator('[data-testid="queue-item-time"]');
    assert.match(await time.textContent(), /^(now|\d+m ago)$/);
    assert.match(await time.getAttribute('title'), new RegExp(`^Paused at ${now.toLocaleString('en-US', { month: 'short' })} ${now.getDate()}, \\d\\d:\\d\\d`));

    assert.equal(squash(await summary(ask.id).textContent()), 'Asks: Which region should the backup go to?');
    assert.equal(await summary(hidden.id).locator('[data-mark="hidden"]').textContent(), '\\u{202E}');
    assert.equal(await summary(hidden.id).locator('[data-mark="lookalike"]').textContent(), '\u0430');
    assert.equal(await row(page, hidden.id).locator('[data-testid="queue-item-marked"]').count(), 1);

    // Decided calls: declined with a reason and approved, through the API.
    const declined = (await server.api('GET', `/api/queue/${encodeURIComponent(ids['rec-2'])}`)).body;
    assert.equal((await server.api('POST', `/api/queue/${encodeURIComponent(declined.id)}/decline`, { fingerprint: declined.fingerprint, reason: 'wrong record' })).status, 200);
    const approved = (await server.api('GET', `/api/queue/${encodeURIComponent(ids['prod-7'])}`)).body;
    assert.equal((await server.api('POST', `/api/queue/${encodeURIComponent(approved.id)}/approve`, { fingerprint: approved.fingerprint })).status, 200);
    await waitFor(async () => (await server.api('GET', `/api/queue/${encodeURIComponent(approved.id)}`)).body.state === 'delivered', 'the approval delivered');
    await waitFor(async () => (await server.api('GET', `/api/queue/${encodeURIComponent(declined.id)}`)).body.state === 'delivered', 'the decline delivered');

    await page.locator('[data-testid="state-tab"][data-tab="decided"]').click();
    const outcome = (id) => row(page, id).locator('[data-testid="queue-item-outcome"]');
    await outcome(declined.id).waitFor({ timeout: 15_000 });
    const operator = (await server.api('GET', `/api/queue/${encodeURIComponent(declined.id)}`)).body.decision.operator;
    assert.match(operator, /\(web\)$/);
    assert.equal(squash(await outcome(declined.id).textContent()), `Declined by ${operator} — wrong record`);
    assert.equal(await outcome(declined.id).getAttribute('data-outcome'), 'declined');
    assert.equal(squash(await outcome(approved.id).textContent()), `Approved by ${operator}`);
    assert.equal(squash(await summary(declined.id).textContent()), 'id: "rec-2"');

    // The detail says it in one sentence, not "DELIVERY: DELIVERED / STATE: DELIVERED".
    await row(page, declined.id).click();
    const result = page.locator(`[data-testid="detail"][data-id="${declined.id}"] [data-testid="decision-summary"]`);
    await result.waitFor();
    const when = squash(await result.locator('[data-testid="decision-time"]').textContent());
    assert.equal(squash(await result.textContent()), `Declined by ${operator} at ${when} — reason: wrong record · delivered to the engine`);
    assert.doesNotMatch(await page.locator('[data-testid="decision-result"]').textContent(), /state:|delivery:/i);
    // Why it paused, in words: delete_record always requires approval.
    assert.equal(squash(await page.locator('[data-testid="pause-reason"]').textContent()), 'Why it paused: The tool always requires approval');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('the filters fold away, and say how many are set while folded', async () => {
  const { page, problems, close } = await newPage(ctx.browser, { viewport: { width: 1280, height: 900 } });
  try {
    await openConsole(page, ctx.server);
    const toggle = page.locator('[data-testid="filters-toggle"]');
    const panel = page.locator('[data-testid="queue-filters"]');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await panel.isVisible(), false);
    await toggle.click();
    await panel.waitFor();
    await page.locator('[data-testid="filter-tool"]').fill('delete_record');
    await page.locator('[data-testid="filter-tool"]').press('Enter');
    await toggle.click();
    await panel.waitFor({ state: 'hidden' });
    assert.equal(squash(await toggle.textContent()), '▸ Filters (1 active)');
    await page.locator('[data-testid="filter-clear"]').click();
    await waitFor(async () => squash(await toggle.textContent()) === '▸ Filters', 'the filters cleared');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
