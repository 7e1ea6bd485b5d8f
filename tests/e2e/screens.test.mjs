// Issue 45, points 7 and 8: a phone layout of its own, and a link for every place. At 390×844 (a
// touch phone) and 1440×900, light and dark:
// - on the phone the list and a call are screens of their own: the list with the views in a bar
//   at the bottom of the screen, a call with a way back at its top and the whole height below it;
//   Back (the control, or the browser's) returns to the list. On the desktop they stand side by
//   side under the views' tabs.
// - a touch screen shows no keyboard hints (the shortcuts' "?", "Enter to confirm"); a desktop does.
// - a reload keeps the view, the list's tab, its filter and search, and the call open; Back walks
//   back through them.
// At 360 px, light and dark, no view scrolls the page sideways.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, row, sideways, startServer, waitFor } from './helpers.mjs';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };
const SCHEMES = ['light', 'dark'];

/** Calls from several sources, as their connectors submit them (POST /api/calls). */
const SUBMITTED = [
  { tool: 'Bash', args: { command: 'kubectl --context prod delete deployment web' }, agent: 'claude-code', source: 'claude-code', thread: 'sess-1', context: { event: 'PreToolUse', cwd: '/srv/ops' } },
  { tool: 'write_file', args: { path: '/home/dev/notes/plan.md', content: '# plan' }, agent: 'server-filesystem', source: 'mcp' },
  { tool: 'transfer_funds', args: { from: 'ops', to: 'acme', amount: 1200 }, agent: 'billing-bot', thread: 't-1' },
  { tool: 'run_sql', args: { query: 'DELETE FROM sessions WHERE expired' }, agent: 'billing-bot', thread: 't-2' },
];

let server;
let browser;
/** The submitted calls' ids, by tool. */
const ids = {};
let decided;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  for (const call of SUBMITTED) {
    const { status, body } = await server.api('POST', '/api/calls', call);
    assert.equal(status, 201, JSON.stringify(body));
    ids[call.tool] = body.id;
  }
  const item = await server.waitForItem(await server.generate('delete rec-decided'));
  const declined = await server.api('POST', `/api/queue/${encodeURIComponent(item.id)}/decline`, { fingerprint: item.fingerprint, reason: 'not today' });
  assert.equal(declined.status, 200, JSON.stringify(declined.body));
  decided = item.id;
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A page of `size`: a touch phone when narrow. */
function open(size, scheme) {
  const phone = size.width <= 600;
  return newPage(browser, { viewport: size, colorScheme: scheme, ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
}

/** Waits for the console to be live at the address it was loaded at. */
async function ready(page) {
  await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
  // Attached: on a phone's call screen the views' bar, with the count, is not shown.
  await page.locator('[data-testid="pending-count"]').waitFor({ state: 'attached' });
}

/** A tap on a touch page, a click otherwise. */
const press = (locator, phone) => (phone ? locator.tap() : locator.click());

const box = (locator) => locator.boundingBox();

for (const size of [PHONE, DESKTOP]) {
  const phone = size.width <= 600;
  for (const scheme of SCHEMES) {
    test(`at ${size.width}×${size.height}, ${scheme}: ${phone ? 'the list and a call are screens of their own, the views in a bar at the bottom, no keyboard hints' : 'the list and a call side by side under the views, with the keyboard hints'}`, async () => {
      const { page, problems, close } = await open(size, scheme);
      try {
        await page.goto(server.url);
        await ready(page);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), scheme);
        const views = page.locator('[data-testid="views"]');
        const first = row(page, ids.transfer_funds);
        await first.waitFor();
        const detail = page.locator(`[data-testid="detail"][data-id="${ids.transfer_funds}"]`);
        const back = page.locator('[data-testid="back-to-list"]');
        const help = page.locator('[data-testid="shortcut-help-open"]');
        const viewsBox = await box(views);
        if (phone) {
          // The list's screen: the views in a bar along the bottom edge, every view's name in it.
          assert.ok(Math.abs(viewsBox.y + viewsBox.height - size.height) <= 1, `the views' bar ends at the bottom of the screen (${viewsBox.y}+${viewsBox.height})`);
          assert.ok(viewsBox.width >= size.width - 1, 'the bar is as wide as the screen');
          for (const tab of await views.locator('[role="tab"]').all()) {
            const t = await box(tab);
            assert.ok(t.x >= 0 && t.x + t.width <= size.width + 0.5, 'each view is in the bar, none off-screen');
            const clipped = await tab.evaluate((el) => [...el.querySelectorAll('.label')].some((l) => l.scrollWidth > l.clientWidth + 1));
            assert.equal(clipped, false, `the view's name is whole: ${await tab.textContent()}`);
          }
          assert.equal(await back.isVisible(), false, 'no way back on the list');
          assert.equal(await help.isVisible(), false, 'no shortcuts on a touch screen');
          // The last row is above the bar, not under it.
          const list = await box(page.locator('[data-testid="queue-scroller"]'));
          assert.ok(list.y + list.height <= viewsBox.y + 1, 'the list ends above the views');
        } else {
          assert.ok(viewsBox.y < 80, 'the views are tabs at the top');
          assert.ok(await help.isVisible(), 'the shortcuts are at hand');
        }

        await press(first, phone);
        await detail.waitFor();
        if (phone) {
          assert.equal(await first.isVisible(), false, 'the call has the screen to itself: the list is not shown');
          assert.equal(await views.isVisible(), false, "the views' bar leaves the screen to the call");
          assert.ok(await back.isVisible(), 'a way back to the list');
          const b = await box(back);
          assert.ok(b.y < 120, 'the way back is at the top');
          const main = await box(page.locator('.main'));
          assert.ok(Math.abs(main.y + main.height - size.height) <= 1, `the call's screen reaches the bottom of the screen (${main.y}+${main.height})`);
        } else {
          assert.ok(await first.isVisible(), 'the list stays beside the call');
          assert.equal(await back.isVisible(), false);
        }

        // The confirm step: its "Enter to confirm" only where there is a keyboard.
        await press(detail.locator('[data-testid="approve"]'), phone);
        const step = detail.locator('[data-testid="approve-confirm-step"]');
        await step.waitFor();
        assert.equal(await step.locator('.hint').isVisible(), !phone, phone ? 'no "Enter to confirm" on a touch screen' : '"Enter to confirm" with a keyboard');
        await press(detail.locator('[data-testid="approve-cancel"]'), phone);

        if (phone) {
          // The browser's Back returns to the list, the call still marked in it; the control does too.
          await page.goBack();
          await first.waitFor();
          assert.equal(await detail.isVisible(), false);
          assert.ok(await views.isVisible());
          assert.equal(await first.getAttribute('aria-selected'), 'true');
          await first.tap();
          await detail.waitFor();
          await back.tap();
          await first.waitFor();
          assert.equal(await detail.isVisible(), false);
          // Another view from the bar, and back to the list.
          await page.locator('[data-testid="audit-tab"]').tap();
          await page.locator('#panel-audit').waitFor();
          await page.locator('[data-testid="queue-tab"]').tap();
          await first.waitFor();
        }
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });

    test(`at ${size.width}×${size.height}, ${scheme}: a reload keeps the view, the list's tab, filter and search and the call open; Back walks back through them`, async () => {
      const { page, problems, close } = await open(size, scheme);
      try {
        await page.goto(server.url);
        await ready(page);
        await press(page.locator('[data-testid="state-tab"][data-tab="all"]'), phone);
        await row(page, decided).waitFor();
        await press(page.locator('[data-testid="filters-toggle"]'), phone);
        await page.locator('[data-testid="filter-agent"]').fill('billing-bot');
        await page.locator('[data-testid="filter-agent"]').press('Enter');
        await waitFor(async () => (await row(page, decided).count()) === 0, 'the filter to apply');
        await page.locator('[data-testid="queue-search"]').fill('transfer');
        await page.locator('[data-testid="queue-search"]').press('Enter');
        await waitFor(async () => (await row(page, ids.run_sql).count()) === 0, 'the search to apply');
        await press(row(page, ids.transfer_funds), phone);
        await page.locator(`[data-testid="detail"][data-id="${ids.transfer_funds}"]`).waitFor();
        const hash = await page.evaluate(() => location.hash);
        assert.equal(hash, `#tab=all&q=transfer&agent=billing-bot&call=${ids.transfer_funds}`);

        await page.reload();
        await ready(page);
        await page.locator(`[data-testid="detail"][data-id="${ids.transfer_funds}"]`).waitFor();
        assert.equal(await page.locator('[data-testid="state-tab"][aria-selected="true"]').getAttribute('data-tab'), 'all');
        assert.equal(await page.locator('[data-testid="queue-search"]').inputValue(), 'transfer');
        assert.equal(await page.locator('[data-testid="filter-agent"]').inputValue(), 'billing-bot');
        const shown = await page.locator('[data-testid="queue-item"]').evaluateAll((els) => els.map((e) => e.dataset.id));
        assert.deepEqual(shown, [ids.transfer_funds], 'the list shows what the filter and the search let through');

        // Another view, kept by a reload too; Back returns to the list as it was.
        if (phone) await page.locator('[data-testid="back-to-list"]').tap();
        await press(page.locator('[data-testid="audit-tab"]'), phone);
        await page.locator('#panel-audit').waitFor();
        assert.equal(await page.evaluate(() => location.hash), '#view=audit&tab=all&q=transfer&agent=billing-bot');
        await page.reload();
        await ready(page);
        await page.locator('#panel-audit').waitFor();
        assert.equal(await page.locator('[data-testid="audit-tab"]').getAttribute('aria-selected'), 'true');
        await page.goBack();
        await page.locator('#panel-queue').waitFor();
        await waitFor(async () => (await page.locator('[data-testid="queue-tab"]').getAttribute('aria-selected')) === 'true', 'the queue view again');
        assert.equal(await page.locator('[data-testid="state-tab"][aria-selected="true"]').getAttribute('data-tab'), 'all');
        assert.equal(await page.locator('[data-testid="queue-search"]').inputValue(), 'transfer');
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });
  }
}

for (const scheme of SCHEMES) {
  test(`at 360 px, ${scheme}: no view scrolls sideways`, async () => {
    const { page, problems, close } = await open({ width: 360, height: 780 }, scheme);
    // Said at once: a page wider than the phone is zoomed out, and what follows would fail for that.
    const check = async (where) => {
      const m = await sideways(page, 360);
      assert.ok(m.scrollWidth <= 360 && m.sticking.length === 0, `${where}: ${m.scrollWidth} px wide; sticking out: ${m.sticking.join('; ')}`);
    };
    try {
      await page.goto(server.url);
      await ready(page);
      await row(page, ids.Bash).waitFor();
      await check('the list');
      await row(page, ids.Bash).tap();
      await page.locator(`[data-testid="detail"][data-id="${ids.Bash}"]`).waitFor();
      await check("a call's screen");
      await page.locator('[data-testid="back-to-list"]').tap();
      for (const [view, shown] of [
        ['audit', '[data-testid="verify-result"]'],
        ['team', '#panel-team h2'],
        ['grants', '#panel-grants h2'],
        ['engines', '#panel-engines h2'],
        ['settings', '#panel-settings h2'],
      ]) {
        await page.locator(`[data-testid="${view}-tab"]`).tap();
        await page.locator(shown).first().waitFor({ timeout: 15_000 });
        await check(`the ${view} view`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
}
