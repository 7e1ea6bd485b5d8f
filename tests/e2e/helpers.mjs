// Shared fixtures for the browser tests: a real `approval-console serve` on port 0 with its own
// data directory and token, and Debian's chromium driven by playwright-core.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const serverBin = process.env.APPROVAL_CONSOLE_BIN || join(repoRoot, 'target/debug/approval-console');
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const URL_LINE = /http:\/\/127\.0\.0\.1:(\d+)\/#token=([^\s]+)/;
const REMOTE_LINE = /Remote listener: (https:\/\/\S+) \(TLS on (\S+);.* pin sha256\/(\S+)\)/;

/**
 * Starts the server and resolves once it printed its UI URL. With `dataDir` it serves that directory
 * and leaves it in place when stopped (to restart on the same database); else it makes a temporary
 * one and removes it.
 * `args`: more arguments for `serve` (e.g. `--listen`); the remote listener's origin and certificate
 * pin, when it prints them, are in `remote`.
 * @param {{dataDir?: string, args?: string[]}} [options]
 * @returns {Promise<{port: number, token: string, dataDir: string, url: string, base: string, api: Function, generate: Function, waitForItem: Function, stop: Function, logs: () => string}>}
 */
/** A request to the HTTP API at `base` with the bearer `secret`; returns `{status, body}` (the body parsed as JSON when it is). */
export async function request(base, secret, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Makes every page of `page`'s context open in `theme` (the console's own setting, in its storage). */
export async function useTheme(page, theme) {
  await page.context().addInitScript(
    ([key, value]) => {
      try {
        window.localStorage.setItem(key, value);
      } catch {
        // about:blank has no storage
      }
    },
    ['approval-console.theme', theme],
  );
}

export async function startServer({ dataDir: givenDataDir, args = [] } = {}) {
  if (!existsSync(serverBin)) {
    throw new Error(`server binary not found at ${serverBin}: build it (cargo build --bin approval-console) or set APPROVAL_CONSOLE_BIN`);
  }
  const dataDir = givenDataDir ?? (await mkdtemp(join(tmpdir(), 'approval-console-e2e-')));
  const token = randomBytes(24).toString('hex');
  const child = spawn(serverBin, ['serve', '--port', '0', '--data-dir', dataDir, '--token', token, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const port = await new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within 30 s\nstdout:\n${out}\nstderr:\n${err}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = URL_LINE.exec(out);
      if (m && (!args.includes('--listen') || REMOTE_LINE.test(out))) {
        clearTimeout(timer);
        resolvePort(Number(m[1]));
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited early (${code ?? signal})\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
  const printedToken = URL_LINE.exec(out)[2];
  if (!printedToken.startsWith(token)) throw new Error(`server printed token ${printedToken}, expected ${token}`);
  const base = `http://127.0.0.1:${port}`;

  /** Calls the HTTP API with the bearer token; returns `{status, body}`. */
  const api = (method, path, body) => request(base, token, method, path, body);

  /** Sends one user message to the demo agent (Mastra-shaped `generate`). */
  async function generate(content) {
    const r = await api('POST', '/api/agents/demo/generate', { messages: [{ role: 'user', content }] });
    if (r.status !== 200) throw new Error(`generate ${JSON.stringify(content)} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** The queue item of a suspended `generate` result, found by run id and tool call id. */
  async function waitForItem(gen) {
    const { runId } = gen;
    const { toolCallId } = gen.suspendPayload;
    let found = null;
    await waitFor(async () => {
      const r = await api('GET', '/api/queue?state=all&limit=500');
      found = r.body.items?.find((i) => i.runId === runId && i.toolCallId === toolCallId) ?? null;
      return found !== null;
    }, `queue item for run ${runId} call ${toolCallId}`);
    return found;
  }

  /** SIGKILL, as a crash: no orderly shutdown; resolves once the process is gone. */
  async function kill() {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  }

  async function stop() {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    if (!givenDataDir) await rm(dataDir, { recursive: true, force: true });
  }

  // The binary embeds ui/dist as it was when it was compiled; without it the server shows a placeholder.
  const shell = await (await fetch(base + '/')).text();
  if (!shell.includes('id="app"')) {
    await stop();
    throw new Error('the server binary has no web UI built in: run `npm ci && npm run build` in ui/, then rebuild the server');
  }

  const r = REMOTE_LINE.exec(out);
  const remote = r ? { origin: r[1], address: r[2], pin: r[3] } : undefined;
  return { port, token, dataDir, url: `${base}/#token=${token}`, base, api, generate, waitForItem, kill, stop, remote, logs: () => `stdout:\n${out}\nstderr:\n${err}` };
}

/** Debian's chromium, headless, with nothing that reaches the network on its own. */
export function launchBrowser(extraArgs = []) {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      ...extraArgs,
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * A new page that records console errors, CSP violations and uncaught exceptions, so a test can
 * assert the UI ran cleanly under the server's Content-Security-Policy. `contextOptions` go to
 * playwright's `browser.newContext` (viewport, colorScheme, …).
 */
export async function newPage(browser, contextOptions = {}) {
  // English unless a test asks otherwise: the console follows the browser's language, and the
  // machine's LANG must not change what the tests read.
  const context = await browser.newContext({ locale: 'en-US', ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  return { page, problems, close: () => context.close() };
}

/** Polls `cond` (sync or async) until it is truthy or the deadline passes. */
export async function waitFor(cond, what = 'condition', timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await cond();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens the console at the printed URL and waits until the list loaded and the event stream is live. */
export async function openConsole(page, server) {
  await page.goto(server.url);
  await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="pending-count"]').waitFor();
}

export const row = (page, id) => page.locator(`[data-testid="queue-item"][data-id="${id}"]`);

/**
 * One server and one browser for the tests of a file: started before them, stopped after them.
 * @returns {{server: Awaited<ReturnType<typeof startServer>>, browser: import('playwright-core').Browser}}
 */
export function serverAndBrowser() {
  const ctx = { server: undefined, browser: undefined };
  before(async () => {
    ctx.server = await startServer();
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.server?.stop();
  });
  return ctx;
}

/**
 * How far the page reaches past the window's right edge, and the outermost elements that stick
 * out (an element inside a box that scrolls sideways and fits the window does not count).
 */
export function sideways(page, vw) {
  return page.evaluate((vw) => {
    const sticking = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= vw + 0.5) continue;
      let clipped = false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX !== 'visible' && a.getBoundingClientRect().right <= vw + 0.5) {
          clipped = true;
          break;
        }
      }
      if (!clipped && !sticking.some((o) => o.contains(el))) sticking.push(el);
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      sticking: sticking.slice(0, 6).map((el) => `${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') ?? el.className}] right=${Math.round(el.getBoundingClientRect().right)}`),
    };
  }, vw);
}
