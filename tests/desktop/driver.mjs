// The real desktop app under WebDriver: starts tauri-driver (which starts the app through
// WebKitWebDriver), with its own data directory and HTTP API port, and a minimal W3C WebDriver client.
// Env: APPROVAL_CONSOLE_DESKTOP_BIN (the built binary), TAURI_DRIVER (tauri-driver); a display (run
// under scripts/with-desktop).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOKEN = 'desktop-e2e-token-a5d1f8c3e7b2906a5d1f8c3e7b29064f';
/** The W3C WebDriver element key. */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** A port on 127.0.0.1 that nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns something truthy (errors count as "not yet"). */
export async function waitFor(check, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/**
 * Starts tauri-driver and a WebDriver session of the app over a fresh data directory.
 * `log`: the app's APPROVAL_CONSOLE_LOG (default `warn`). Everything the app and the drivers write to
 * stderr is kept (`stderr()`), so a test can check what reached the logs, and passed through unless
 * `quiet`.
 */
/** SIGTERM to the process group `pgid`, SIGKILL after 10 s; resolves once no process of it is left. */
export async function endGroup(pgid) {
  const signal = (sig) => {
    try {
      process.kill(-pgid, sig);
      return true;
    } catch {
      return false; // ESRCH: none left
    }
  };
  if (!signal('SIGTERM')) return;
  const deadline = Date.now() + 10_000;
  while (signal(0)) {
    if (Date.now() > deadline) {
      signal('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function openDesktop({ log = 'warn', quiet = false } = {}) {
  const bin = process.env.APPROVAL_CONSOLE_DESKTOP_BIN;
  const driverBin = process.env.TAURI_DRIVER;
  assert.ok(bin, 'APPROVAL_CONSOLE_DESKTOP_BIN must name the built approval-console-desktop');
  assert.ok(driverBin, 'TAURI_DRIVER must name tauri-driver');
  assert.ok(process.env.DISPLAY, 'run under scripts/with-desktop');
  const dir = mkdtempSync(join(tmpdir(), 'desktop-e2e-'));
  const driverUrl = `http://127.0.0.1:${await freePort()}`;
  const apiUrl = `http://127.0.0.1:${await freePort()}`;
  // WebKitWebDriver starts the app with tauri-driver's environment.
  const driver = spawn(driverBin, ['--port', new URL(driverUrl).port, '--native-driver', '/usr/bin/WebKitWebDriver'], {
    env: {
      ...process.env,
      APPROVAL_CONSOLE_DATA_DIR: join(dir, 'data'),
      APPROVAL_CONSOLE_PORT: new URL(apiUrl).port,
      APPROVAL_CONSOLE_TOKEN: TOKEN,
      APPROVAL_CONSOLE_LOG: log,
      // The window (and its notifications) follow the desktop locale: English here, whatever the
      // machine's, since the tests read English words.
      LANG: 'C.UTF-8',
      LC_ALL: '',
      LC_MESSAGES: '',
      LANGUAGE: '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: close() ends tauri-driver, WebKitWebDriver and the app together (the
    // app can outlive its WebDriver session, holding the stderr pipe open and, through the
    // single-instance plugin, turning the next test's launch into a focus request).
    detached: true,
  });
  const errText = [];
  driver.stderr.on('data', (chunk) => {
    errText.push(chunk.toString());
    if (!quiet) process.stderr.write(chunk);
  });
  let session;
  const close = async () => {
    if (session) await fetch(`${driverUrl}/session/${session}`, { method: 'DELETE' }).catch(() => {});
    await endGroup(driver.pid);
    driver.stderr.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => (await fetch(`${driverUrl}/status`)).ok, 'tauri-driver');
    const created = await fetch(`${driverUrl}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'wry', 'tauri:options': { application: bin } } } }),
    });
    const json = await created.json();
    assert.ok(created.ok, `WebDriver session: ${JSON.stringify(json)}`);
    session = json.value.sessionId;
    await waitFor(async () => (await fetch(`${apiUrl}/api/health`)).ok, "the app's HTTP API");
  } catch (e) {
    await close();
    throw e;
  }

  /** One WebDriver command of this session; throws with the driver's message on an error answer. */
  async function wd(method, path, body) {
    const r = await fetch(`${driverUrl}/session/${session}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json.value)}`);
    return json.value;
  }
  async function find(css) {
    const found = await wd('POST', '/elements', { using: 'css selector', value: css });
    return found.length ? found[0][ELEMENT] : null;
  }
  async function text(css) {
    const el = await find(css);
    return el ? await wd('GET', `/element/${el}/text`) : null;
  }
  async function click(css) {
    const el = await waitFor(() => find(css), css);
    await wd('POST', `/element/${el}/click`, {});
  }
  /** The app's HTTP API (what agents use). */
  async function api(method, path, body) {
    const r = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json().catch(() => null) };
  }
  /** The demo agent pauses on `text`; returns the queue entry. */
  async function pause(text) {
    const gen = await api('POST', '/api/agents/demo/generate', { messages: text });
    assert.equal(gen.body.finishReason, 'suspended', JSON.stringify(gen.body));
    const page = await api('GET', `/api/queue?run=${encodeURIComponent(gen.body.runId)}`);
    return page.body.items[0];
  }
  /** Types `value` into the element at `css` (after clearing it). */
  async function type(css, value) {
    const el = await waitFor(() => find(css), css);
    await wd('POST', `/element/${el}/clear`, {});
    await wd('POST', `/element/${el}/value`, { text: value });
  }
  return {
    wd, find, text, click, type, api, pause, waitFor, close,
    /** The app's data directory. */
    dataDir: join(dir, 'data'),
    /** What the app and the drivers wrote to stderr so far. */
    stderr: () => errText.join(''),
  };
}
