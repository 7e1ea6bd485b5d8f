// Issue 45, the operator's desk, in the real UI against the real server: 17 calls from five
// sources (desk-calls.mjs), at 1440×900 and 390×844, light and dark. Every row shows its whole tool
// name and the two-person progress "1/2 · alice"; Approve is in the window, uncovered, on every
// detail without scrolling; after a decision the next call's title is in view and covered by
// nothing (the console's note included), however far the last detail was scrolled; one's own
// approval short of a quorum moves on to the next call, and the letter keys still work there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser, waitFor } from './helpers.mjs';
import { as, clickRow, LONG_EDIT, LONG_WRITE, LONGEST_TOOL, QUORUM_TOOL, seedDesk } from './desk-calls.mjs';

const ctx = serverAndBrowser();
const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const THEMES = ['light', 'dark'];
let seeded = null;
const seed = async () => (seeded ??= await seedDesk(ctx.server));

/** Whether the element's centre is inside the window and the element (or a child) is what is there, not something laid over it. */
async function uncovered(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const inView = r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
    const there = document.elementFromPoint(x, y);
    return { inView, top: Math.round(r.top), bottom: Math.round(r.bottom), hit: !!there && (el === there || el.contains(there)), there: there ? `${there.tagName}.${there.className}` : null };
  });
}

/** Every row of the list, scrolled through: its id, its tool name and whether the name is whole. */
async function rowsRead(page) {
  const scroller = page.locator('[data-testid="queue-scroller"]');
  await scroller.evaluate((el) => (el.scrollTop = 0));
  const seen = new Map();
  for (let step = 0; step < 100; step++) {
    const rows = await page.locator('[data-testid="queue-item"]').evaluateAll((els) =>
      els.map((el) => {
        const tool = el.querySelector('[data-testid="queue-item-tool"]');
        const quorum = el.querySelector('[data-testid="row-quorum"]');
        const flags = quorum?.parentElement;
        return {
          id: el.dataset.id,
          name: tool.textContent,
          whole: tool.scrollWidth <= tool.clientWidth,
          quorum: quorum ? { text: quorum.textContent, shown: quorum.getBoundingClientRect().right <= flags.getBoundingClientRect().right + 0.5 } : null,
        };
      }),
    );
    for (const r of rows) seen.set(r.id, r);
    const end = await scroller.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop += el.clientHeight / 2;
      return el.scrollTop === before;
    });
    if (end) break;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  }
  return [...seen.values()];
}

for (const size of SIZES) {
  for (const theme of THEMES) {
    test(`at ${size.width}×${size.height}, ${theme}: every row shows its whole tool name and the quorum's 1/2 · alice; Approve is in view and uncovered on every detail`, async () => {
      const { all, ids } = await seed();
      const { page, problems, close } = await newPage(ctx.browser, { viewport: size, colorScheme: theme });
      try {
        await openConsole(page, ctx.server);
        await page.locator('[data-testid="queue-item"]').first().waitFor();
        assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), theme === 'dark');
        const rows = await waitFor(async () => {
          const r = await rowsRead(page);
          return r.length >= 17 ? r : false;
        }, 'all 17 rows read');
        for (const r of rows) {
          assert.ok([...r.name].length <= 24, r.name);
          assert.ok(r.whole, `the row of ${r.id} cuts its tool name ${r.name}`);
        }
        assert.ok(rows.some((r) => r.name === LONGEST_TOOL), 'the 24-character name is listed');
        const quorum = rows.find((r) => r.id === ids[QUORUM_TOOL]);
        assert.deepEqual(quorum.quorum, { text: '1/2 · alice', shown: true });

        for (const id of all) {
          await clickRow(page, id);
          const detail = page.locator(`[data-testid="detail"][data-id="${id}"]`);
          await detail.waitFor();
          const tool = await detail.locator('[data-testid="detail-tool"]').textContent();
          // A question is answered, not approved: its Send button stands for Approve.
          const control = detail.locator('[data-testid="approve"], [data-testid="resume-submit"]').first();
          await control.waitFor();
          const seen = await uncovered(control);
          assert.ok(seen.inView && seen.hit, `${tool} (${id}): ${JSON.stringify(seen)}`);
        }
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });
  }
}

for (const size of SIZES) {
  for (const theme of THEMES) {
    test(`at ${size.width}×${size.height}, ${theme}: after a decision the next call opens at its top, its title in view and covered by nothing`, async () => {
      const { tokens } = await seed();
      // A Write whose diff is longer than the window, decided at the bottom of its detail; the call
      // below it in the list (newest first) is an Edit as long, submitted just before it: it must
      // open at its top, not where the Write was left.
      const submit = async (call) => {
        const { status, body } = await as(ctx.server, tokens.agents, 'POST', '/api/calls', call);
        assert.equal(status, 201, JSON.stringify(body));
        return body.id;
      };
      const edit = await submit(LONG_EDIT);
      const decided = await submit(LONG_WRITE);
      const { page, problems, close } = await newPage(ctx.browser, { viewport: size, colorScheme: theme });
      try {
        await openConsole(page, ctx.server);
        await page.locator('[data-testid="queue-item"]').first().waitFor();
        await clickRow(page, decided);
        const detail = page.locator(`[data-testid="detail"][data-id="${decided}"]`);
        await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
        const scrolled = await detail.evaluate((el) => {
          const pane = el.closest('.main');
          pane.scrollTop = pane.scrollHeight;
          window.scrollTo(0, document.documentElement.scrollHeight);
          return pane.scrollTop + window.scrollY;
        });
        assert.ok(scrolled > 0, 'the Write is read to its end');
        await detail.locator('[data-testid="approve"]').click();
        await detail.locator('[data-testid="approve-confirm"]').click();
        const next = page.locator('[data-testid="detail"][data-arrived="true"]');
        await next.waitFor();
        assert.equal(await next.getAttribute('data-id'), edit);
        const title = next.locator('[data-testid="detail-tool"]');
        const note = next.locator('[data-testid="triage-note"]');
        await waitFor(async () => /Showing the next call/.test(await note.textContent()), 'the note on the decision');
        const seen = await uncovered(title);
        assert.ok(seen.inView && seen.hit, `the next call's title: ${JSON.stringify(seen)}`);
        // The note is in view too, and laid over none of the header.
        const [n, h] = [await note.boundingBox(), await next.locator('[data-testid="detail-header"]').boundingBox()];
        assert.ok(n.y >= 0 && n.y + n.height <= size.height, `the note in view: ${JSON.stringify(n)}`);
        assert.ok(n.y >= h.y + h.height || n.y + n.height <= h.y, `the note clear of the header: ${JSON.stringify({ n, h })}`);
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });
  }
}

test("one's own approval short of the quorum moves on to the next call, the letter keys still working there", async () => {
  const { tokens } = await seed();
  const { server, browser } = ctx;
  // Submitted by an agent (the one who asked may not approve it).
  const { status, body } = await as(server, tokens.agents, 'POST', '/api/calls', { tool: QUORUM_TOOL, args: { from: 'ops-main', to: 'b', amount: 7 }, agent: 'billing-bot' });
  assert.equal(status, 201, JSON.stringify(body));
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1440, height: 900 } });
  try {
    await openConsole(page, server);
    await page.locator('[data-testid="queue-item"]').first().waitFor();
    await clickRow(page, body.id);
    const detail = page.locator(`[data-testid="detail"][data-id="${body.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    await detail.locator('[data-testid="detail-tool"]').focus();
    await page.keyboard.press('a');
    await detail.locator('[data-testid="approve-confirm"]').waitFor();
    await page.keyboard.press('Enter');
    // Recorded, still waiting for a second person: the next call is shown, the row says 1/2.
    await waitFor(async () => (await page.locator('[data-testid="detail"]').getAttribute('data-id')) !== body.id, 'the next call shown');
    const item = (await server.api('GET', `/api/queue/${body.id}`)).body;
    assert.equal(item.state, 'pending');
    assert.equal(item.approvals.length, 1);
    await waitFor(async () => /^1\/2 · /.test((await page.locator(`[data-testid="queue-item"][data-id="${body.id}"] [data-testid="row-quorum"]`).textContent()) ?? ''), 'the row says 1/2');
    // The keys were not paused: j moves on at once.
    const shown = await page.locator('[data-testid="detail"]').getAttribute('data-id');
    await page.keyboard.press('j');
    await waitFor(async () => (await page.locator('[data-testid="detail"]').getAttribute('data-id')) !== shown, 'j moved the selection');
    assert.doesNotMatch((await page.locator('[data-testid="triage-live"]').textContent()) ?? '', /paused/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
