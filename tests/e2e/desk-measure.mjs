// Issue 45's before/after figures, measured in the real UI against the real server. Not a test:
//   APPROVAL_CONSOLE_BIN=$PWD/target/debug/approval-console node tests/e2e/desk-measure.mjs
// 1. At 1440×900, for each of the 17 mixed calls (desk-calls.mjs): the pixels from the top of the
//    window to the top of Approve (a question: its Send button) when the call is opened, without
//    scrolling, and whether the whole button is in the window.
// 2. A 12-call keyboard triage of the demo agent's calls (8 approved, 2 declined with a preset
//    reason, 2 questions answered): the keys pressed and the seconds from the first key to the last
//    decision. Each step uses the fewest keys the console offers: `a` Enter; `d`, then a preset
//    (its number when the presets are numbered, else Tab to it and Enter), then Enter; `r`, the
//    answer, Enter.
import { launchBrowser, newPage, openConsole, startServer, waitFor } from './helpers.mjs';
import { clickRow, seedDesk } from './desk-calls.mjs';

async function approveOffsets(browser) {
  const server = await startServer();
  try {
    const { all } = await seedDesk(server);
    const { page, close } = await newPage(browser, { viewport: { width: 1440, height: 900 } });
    const out = [];
    try {
      await openConsole(page, server);
      for (const id of all) {
        await clickRow(page, id);
        const detail = page.locator(`[data-testid="detail"][data-id="${id}"]`);
        await detail.waitFor();
        const tool = await detail.locator('[data-testid="detail-tool"]').textContent();
        const target = detail.locator('[data-testid="approve"], [data-testid="resume-submit"]').first();
        await target.waitFor({ state: 'attached' });
        const box = await target.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return { top: Math.round(r.top), bottom: Math.round(r.bottom) };
        });
        out.push({ tool, top: box.top, inView: box.top >= 0 && box.bottom <= 900 });
      }
    } finally {
      await close();
    }
    return out;
  } finally {
    await server.stop();
  }
}

async function triage(browser) {
  const server = await startServer();
  try {
    const plan = [];
    for (let i = 0; i < 12; i++) plan.push(i % 6 === 5 ? `ask question ${i}?` : `delete rec-tri-${i}`);
    for (const m of plan) await server.waitForItem(await server.generate(m));
    const { page, close } = await newPage(browser, { viewport: { width: 1440, height: 900 } });
    let keys = 0;
    const press = async (k) => {
      keys++;
      await page.keyboard.press(k);
    };
    const type = async (t) => {
      keys += [...t].length;
      await page.keyboard.type(t);
    };
    try {
      await openConsole(page, server);
      const pending = async () => Number(await page.locator('[data-testid="pending-count"]').textContent());
      await waitFor(async () => (await pending()) === 12, 'all 12 calls pending');
      await page.locator('[data-testid="queue-item"]').first().waitFor();
      const started = Date.now();
      await press('j');
      let decided = null;
      let declines = 0;
      for (let left = 12; left > 0; left--) {
        const detail = page.locator('[data-testid="detail"]');
        decided = await waitFor(async () => {
          const id = await detail.getAttribute('data-id', { timeout: 1000 });
          return id && id !== decided ? id : false;
        }, `the call after ${decided}`);
        const tool = await detail.locator('[data-testid="detail-tool"]').textContent();
        if (tool === 'ask_operator') {
          await press('r');
          await type('eu-west');
          await press('Enter');
        } else if (declines < 2 && left % 5 === 0) {
          declines++;
          await press('d');
          const numbered = await detail.locator('[data-testid="decision-bar"] [data-testid="decline-preset"]').count();
          if (numbered > 0) await press('1');
          else {
            // Tab from the reason field to the first preset, then Enter fills the reason.
            await waitFor(async () => {
              const onPreset = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'decline-preset');
              if (!onPreset) await press('Tab');
              return onPreset;
            }, 'the first preset focused');
            await press('Enter');
          }
          await press('Enter');
        } else {
          await press('a');
          await page.locator('[data-testid="approve-confirm"]').waitFor();
          await press('Enter');
        }
        await waitFor(async () => (await pending()) === left - 1, `${left - 1} calls left`);
      }
      return { keys, seconds: (Date.now() - started) / 1000, declines };
    } finally {
      await close();
    }
  } finally {
    await server.stop();
  }
}

const browser = await launchBrowser();
try {
  const offsets = await approveOffsets(browser);
  for (const o of offsets) console.log(`approve-top ${String(o.top).padStart(5)} px ${o.inView ? 'in view ' : 'BELOW   '} ${o.tool}`);
  const tops = offsets.map((o) => o.top).sort((a, b) => a - b);
  console.log(`approve-top min ${tops[0]} median ${tops[Math.floor(tops.length / 2)]} max ${tops[tops.length - 1]}; in view on ${offsets.filter((o) => o.inView).length} of ${offsets.length}`);
  const t = await triage(browser);
  console.log(`triage 12 calls: ${t.keys} keys, ${t.seconds.toFixed(1)} s (${t.declines} declines)`);
} finally {
  await browser.close();
}
