// Issue 25: the audit tables keep times and ids whole at a narrow width — a time on one line
// ("5:39:59 AM", never "5:39:5 / 9 AM"), the id of a grant that decided on one line —
// while arguments of any length still wrap rather than widen the page: in chromium.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser } from './helpers.mjs';

const ctx = serverAndBrowser();

/** How many lines the element's text takes (an inline box broken over lines has a rect per line). */
const lines = (locator) => locator.evaluate((el) => new Set([...el.getClientRects()].map((r) => Math.round(r.top))).size);

test('times and grant ids stay on one line in the audit log of a narrow window', async () => {
  const { server } = ctx;
  const long = 'x'.repeat(300);
  const item = await server.waitForItem(await server.generate(`delete ${long}`));
  const grant = await server.api('POST', '/api/grants', {
    fromItem: item.id,
    fingerprint: item.fingerprint,
    scope: 'run',
    conditions: [{ pointer: '/id', op: 'equals', value: long }],
    expiresInSecs: 3600,
  });
  assert.equal(grant.status, 201, JSON.stringify(grant.body));

  const { page, problems, close } = await newPage(ctx.browser, { viewport: { width: 760, height: 700 } });
  try {
    await openConsole(page, server);
    await page.locator('[data-testid="audit-tab"]').click();
    // The call the grant approved at once: its decision's operator is the grant, by its id.
    const operator = page.locator(`[data-testid="audit-entry"][data-kind="decision"][data-item-id="${item.id}"] [data-testid="history-operator"]`);
    await operator.waitFor({ timeout: 15_000 });
    const id = (await operator.textContent()).match(/grant (g_[0-9a-f]+)/)?.[1];
    assert.ok(id, await operator.textContent());
    const idLines = await operator.evaluate((el, id) => {
      const node = [...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.includes(id));
      const range = document.createRange();
      const at = node.textContent.indexOf(id);
      range.setStart(node, at);
      range.setEnd(node, at + id.length);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    }, id);
    assert.equal(idLines, 1, 'the grant id is on one line');
    const times = page.locator('[data-testid="audit-time"]');
    assert.ok((await times.count()) > 0);
    for (let i = 0; i < (await times.count()); i++) assert.equal(await lines(times.nth(i)), 1, `time ${i} on one line`);
    await page.locator('[data-testid="audit-mode-entries"]').click();
    await page.locator('[data-testid="audit-entry"][data-kind="entry"]').first().waitFor();
    for (let i = 0; i < (await times.count()); i++) assert.equal(await lines(times.nth(i)), 1, `entry time ${i} on one line`);
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
    assert.ok(narrow, 'the page does not grow wider than the window (a wide table scrolls in its own pane)');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
