// The desktop window's part of `cargo bench --bench figures -- desktop` (which runs it with a filled data
// directory). Prints figures, asserts nothing.
//
//   node bench/desktop-window.mjs DATA_DIR PENDING
//   env: APPROVAL_CONSOLE_DESKTOP_BIN, TAURI_BASELINE_BIN, TAURI_DRIVER; a display and a session bus
//        (scripts/with-desktop).
//
// 1. App start to a visible queue: from asking tauri-driver for a session (which starts the app
//    through WebKitWebDriver) to the first queue row in the window's DOM. This includes
//    WebKitWebDriver's own start, so it is an upper bound of what a user sees.
// 2. Idle memory: the app started directly (no WebDriver), left alone for IDLE_S seconds, then the
//    RSS and PSS of its process and every descendant (WebKitWebProcess, WebKitNetworkProcess);
//    the same for the smallest Tauri app (bench/tauri-baseline) as the baseline. PSS splits shared
//    pages between the processes that map them, so PSS sums are the fairer total.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { endGroup, freePort } from '../tests/desktop/driver.mjs';

const [dataDir, pending] = process.argv.slice(2);
const { APPROVAL_CONSOLE_DESKTOP_BIN: app, TAURI_BASELINE_BIN: baseline, TAURI_DRIVER: driverBin } = process.env;
const RUNS = Number(process.env.BENCH_WINDOW_RUNS ?? 3);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 15);
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(check, what, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Launch through WebDriver until the first queue row exists; ms. */
async function windowStart() {
  const port = await freePort();
  const driver = spawn(driverBin, ['--port', String(port), '--native-driver', '/usr/bin/WebKitWebDriver'], {
    env: { ...process.env, APPROVAL_CONSOLE_DATA_DIR: dataDir, APPROVAL_CONSOLE_PORT: '0', APPROVAL_CONSOLE_LOG: 'error' },
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: true, // its own process group, ended with the app in it
  });
  const base = `http://127.0.0.1:${port}`;
  let session;
  try {
    await until(async () => (await fetch(`${base}/status`)).ok, 'tauri-driver');
    const t0 = performance.now();
    const created = await (
      await fetch(`${base}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'wry', 'tauri:options': { application: app } } } }),
      })
    ).json();
    session = created.value.sessionId;
    if (!session) throw new Error(`no WebDriver session: ${JSON.stringify(created)}`);
    const tSession = performance.now();
    await until(async () => {
      const r = await (
        await fetch(`${base}/session/${session}/elements`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ using: 'css selector', value: '[data-testid="queue-item"]' }),
        })
      ).json();
      return Array.isArray(r.value) && r.value.length > 0 && r.value[0][ELEMENT];
    }, 'the first queue row');
    return { total: performance.now() - t0, session: tSession - t0 };
  } finally {
    if (session) await fetch(`${base}/session/${session}`, { method: 'DELETE' }).catch(() => {});
    await endGroup(driver.pid); // tauri-driver, WebKitWebDriver and the app: the data directory is free again
  }
}

/** pid → [ppid, name] of every process. */
function processTable() {
  const table = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      table.set(Number(d), [ppid, name]);
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

function kib(pid, file, key) {
  try {
    const line = readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\n').find((l) => l.startsWith(`${key}:`));
    return Number(line.split(/\s+/)[1]);
  } catch {
    return 0;
  }
}

/** Start `bin args`, wait IDLE_S, measure its process tree, stop it. */
async function idleMemory(bin, args, env) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'ignore'] });
  await sleep(IDLE_S * 1000);
  const table = processTable();
  const tree = [child.pid];
  for (let i = 0; i < tree.length; i++) for (const [pid, [ppid]] of table) if (ppid === tree[i]) tree.push(pid);
  const rows = tree.map((pid) => ({ pid, name: table.get(pid)?.[1] ?? '?', rss: kib(pid, 'status', 'VmRSS'), pss: kib(pid, 'smaps_rollup', 'Pss') }));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await sleep(1000);
  return rows;
}

const mib = (k) => (k / 1024).toFixed(1);
function report(label, rows) {
  const rss = rows.reduce((s, r) => s + r.rss, 0);
  const pss = rows.reduce((s, r) => s + r.pss, 0);
  console.log(`${label}: RSS ${mib(rss)} MiB, PSS ${mib(pss)} MiB in ${rows.length} processes (${rows.map((r) => `${r.name} ${mib(r.pss)}`).join(', ')} MiB PSS)`);
  return pss;
}

const starts = [];
for (let i = 0; i < RUNS; i++) starts.push(await windowStart());
const totals = starts.map((s) => s.total).sort((a, b) => a - b);
console.log(
  `window start with ${pending} pending, to the first row in the window (through tauri-driver + WebKitWebDriver, ${RUNS} runs): ` +
    `median ${totals[Math.floor(totals.length / 2)].toFixed(0)} ms, max ${totals[totals.length - 1].toFixed(0)} ms ` +
    `(of which WebDriver session creation, app start included: median ${starts.map((s) => s.session).sort((a, b) => a - b)[Math.floor(RUNS / 2)].toFixed(0)} ms)   (target < 1000 ms)`,
);
const appPss = report(`idle memory of the desktop app with ${pending} pending, ${IDLE_S} s after start`, await idleMemory(app, ['--data-dir', dataDir, '--port', '0'], { APPROVAL_CONSOLE_LOG: 'error' }));
const basePss = report(`idle memory of the minimal Tauri app (baseline), ${IDLE_S} s after start`, await idleMemory(baseline, [], {}));
console.log(`the desktop app over the baseline: +${mib(appPss - basePss)} MiB PSS`);
