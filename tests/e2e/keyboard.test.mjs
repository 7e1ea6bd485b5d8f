// Issue 6's "done when": an operator clears a queue of 50 mixed calls by keyboard alone — approvals
// approved (a, then Enter on the confirm step) or declined with a reason, suspended calls answered
// through their form — in the real UI against the real server. No click after the page opened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('a queue of 50 mixed calls is cleared by keyboard alone', async () => {
  const ids = [];
  for (let i = 0; i < 50; i++) {
    const gen = await ctx.server.generate(i % 5 === 4 ? `ask question ${i}?` : `delete rec-kb-${i}`);
    ids.push((await ctx.server.waitForItem(gen)).id);
  }
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    const pending = async () => Number(await page.locator('[data-testid="pending-count"]').textContent());
    await waitFor(async () => (await pending()) === 50, 'all 50 calls pending');
    // The list's rows are loaded apart from the count: j selects nothing before they are there.
    await page.locator('[data-testid="queue-item"]').first().waitFor();
    await waitFor(async () => {
      if (await page.locator('[data-testid="detail"]').count()) return true;
      await page.keyboard.press('j'); // select and show the first call
      return false;
    }, 'j to open the first call');
    let declined = 0;
    let decided = null;
    for (let left = 50; left > 0; left--) {
      const detail = page.locator('[data-testid="detail"]');
      // The next call opens after the count changed: a key pressed before would act on the call
      // just decided (typed text going to the shortcuts instead of a reason field).
      decided = await waitFor(async () => {
        const id = await detail.getAttribute('data-id', { timeout: 1000 });
        return id && id !== decided ? id : false;
      }, `the call after ${decided} to open`);
      const tool = await detail.locator('[data-testid="detail-tool"]').textContent();
      if (tool === 'ask_operator') {
        await page.keyboard.press('r'); // to the resume form's first field
        await page.keyboard.type('eu-west');
        await page.keyboard.press('Enter');
      } else if (left % 7 === 0) {
        await page.keyboard.press('d'); // to the reason field
        await page.keyboard.type('not this one');
        await page.keyboard.press('Enter');
        declined++;
      } else {
        await page.keyboard.press('a'); // the confirm step: nothing is sent before Enter
        await page.locator('[data-testid="approve-confirm"]').waitFor();
        await page.keyboard.press('Enter');
      }
      await waitFor(async () => (await pending()) === left - 1, `${left - 1} calls left`);
    }
    // Every call decided and delivered, as the server says.
    for (const id of ids) {
      const item = (await ctx.server.api('GET', `/api/queue/${id}`)).body;
      assert.equal(item.state, 'delivered', JSON.stringify(item));
    }
    const kinds = await Promise.all(ids.map(async (id) => (await ctx.server.api('GET', `/api/queue/${id}`)).body.decision.kind));
    assert.equal(kinds.filter((k) => k === 'resume').length, 10);
    assert.equal(kinds.filter((k) => k === 'decline').length, declined);
    assert.ok(declined > 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
