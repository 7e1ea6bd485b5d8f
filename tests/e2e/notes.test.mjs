// Issue 25: what the console says about the keys or a decision (the triage note) is in view however
// far the detail is scrolled, and its coming pushes nothing down: in the real UI, in chromium.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('the note a key leaves shows in view over a scrolled detail and moves nothing', async () => {
  const { server, browser } = ctx;
  const item = await server.waitForItem(await server.generate('delete rec-note-1'));
  // Short enough that the detail scrolls.
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1100, height: 420 } });
  try {
    await openConsole(page, server);
    await row(page, item.id).click();
    const detail = page.locator(`[data-testid="detail"][data-id="${item.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    const scrolled = await detail.evaluate((el) => {
      const pane = el.closest('.main');
      pane.scrollTop = pane.scrollHeight;
      return pane.scrollTop;
    });
    assert.ok(scrolled > 0, 'the detail scrolls at this size');
    const before = await detail.boundingBox();

    // `r` does not apply to an approval: the console says so, and pauses the letter keys.
    await page.keyboard.press('r');
    const note = page.locator('[data-testid="triage-note"]');
    await waitFor(async () => /does nothing here/.test(await note.textContent()), 'the note says the key does not apply');
    const box = await note.boundingBox();
    const pane = await detail.evaluate((el) => {
      const r = el.closest('.main').getBoundingClientRect();
      return { top: r.top, bottom: r.bottom };
    });
    assert.ok(box && box.height > 0, 'the note is shown');
    assert.ok(box.y >= pane.top && box.y + box.height <= pane.bottom, `the note is inside the visible pane: ${JSON.stringify({ box, pane })}`);
    assert.ok(box.y + box.height <= 420, 'and inside the window');
    const after = await detail.boundingBox();
    assert.equal(after.y, before.y, 'the detail did not move when the note came');
    await page.keyboard.press('Escape');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
