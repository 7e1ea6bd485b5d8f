// The web UI with a large queue, in headless Debian chromium (part of `cargo bench --bench figures -- desktop`,
// which runs it over its filled data directory). Prints figures, asserts nothing.
//
//   node bench/ui-queue.mjs DATA_DIR PENDING        env: APPROVAL_CONSOLE_BIN (a release build is fair)
//
// 1. First render: from the first queue page's response having arrived (its headers: reading and
//    parsing the body are counted in, so an upper bound) to the first row in the DOM, and from
//    navigation start, measured in the page.
// 2. Scrolling: frame-to-frame times while the list is scrolled steadily for 240 frames (pages load
//    as the end comes into view), p50/p95/max.
// 3. Live: from an agent's call pausing (its `generate` answered `suspended`) to its row in the
//    list (SSE event, fetch, render), BENCH_LIVE calls (default 100: enough for a rough p99),
//    p50/p95/p99/max.
import { launchBrowser, openConsole, startServer } from '../tests/e2e/helpers.mjs';

const [dataDir, pending] = process.argv.slice(2);
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.round((xs.length - 1) * p))];
const f = (x) => x.toFixed(1);

const server = await startServer({ dataDir });
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Before any page script: note when a queue page's body has been read, and when the first row appears.
  await context.addInitScript(() => {
    const marks = (window.__bench = { dataAt: null, rowAt: null, rows: new Map() });
    const realFetch = window.fetch;
    window.fetch = async (...args) => {
      const r = await realFetch(...args);
      const url = String(args[0] instanceof Request ? args[0].url : args[0]);
      if (marks.dataAt === null && /\/api\/queue\?/.test(url)) marks.dataAt = performance.now();
      return r;
    };
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="queue-item"]')) {
        if (marks.rowAt === null) marks.rowAt = performance.now();
        const id = el.getAttribute('data-id');
        if (id && !marks.rows.has(id)) marks.rows.set(id, Date.now());
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  await openConsole(page, server);
  await page.locator('[data-testid="queue-item"]').first().waitFor();
  const first = await page.evaluate(() => ({ dataAt: window.__bench.dataAt, rowAt: window.__bench.rowAt, rows: document.querySelectorAll('[data-testid="queue-item"]').length }));
  console.log(
    `web UI, ${pending} pending: first row ${f(first.rowAt - first.dataAt)} ms after the first queue response arrived (body read and parsed included; target < 500 ms after the data), ` +
      `${f(first.rowAt)} ms after navigation start; ${first.rows} rows in the DOM`,
  );

  const frames = await page.evaluate(async () => {
    const list = document.querySelector('[role="listbox"]');
    let el = list;
    while (el && el.scrollHeight <= el.clientHeight) el = el.parentElement;
    if (!el) return null;
    const times = [];
    let last = performance.now();
    for (let i = 0; i < 240; i++) {
      el.scrollTop += 120;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    return { times, rows: document.querySelectorAll('[data-testid="queue-item"]').length, top: el.scrollTop };
  });
  if (frames) {
    console.log(
      `scrolling the list (240 frames, 120 px each): frame time p50 ${f(pct(frames.times, 0.5))} ms, p95 ${f(pct(frames.times, 0.95))} ms, ` +
        `max ${f(Math.max(...frames.times))} ms; ${frames.rows} rows in the DOM afterwards`,
    );
  } else {
    console.log('scrolling the list: no scrollable list found');
  }

  await page.evaluate(() => {
    const list = document.querySelector('[role="listbox"]');
    let el = list;
    while (el && el.scrollHeight <= el.clientHeight) el = el.parentElement;
    if (el) el.scrollTop = 0;
  });
  const live = [];
  const calls = Number(process.env.BENCH_LIVE ?? 100);
  for (let i = 0; i < calls; i++) {
    const gen = await server.generate(`delete bench-live-${i}`);
    const paused = Date.now();
    const item = await server.waitForItem(gen);
    const seen = await page.waitForFunction((id) => window.__bench.rows.get(id), item.id, { timeout: 15_000, polling: 10 });
    live.push((await seen.jsonValue()) - paused);
  }
  console.log(
    `live: a paused call to its row on screen, ${calls} calls: p50 ${f(pct(live, 0.5))} ms, p95 ${f(pct(live, 0.95))} ms, ` +
      `p99 ${f(pct(live, 0.99))} ms, max ${f(Math.max(...live))} ms`,
  );
} finally {
  await browser.close();
  await server.stop();
}
