// The desktop window end to end, through WebDriver: tauri-driver + WebKitWebDriver drive the real
// approval-console-desktop binary under Xvfb, with a real dunst for its notifications.
//
//   scripts/with-desktop node --test tests/desktop/window.test.mjs
//
// Env: APPROVAL_CONSOLE_DESKTOP_BIN (the built binary), TAURI_DRIVER (tauri-driver), and the
// variables scripts/with-desktop sets (DISPLAY, DUNST_PRINT_LOG, DUNST_CHOICE_FILE).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

const BIN = process.env.APPROVAL_CONSOLE_DESKTOP_BIN;
const DRIVER = process.env.TAURI_DRIVER;
const TOKEN = 'desktop-e2e-token';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(check, what, ms = 30_000) {
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

let dir, driver, driverUrl, apiUrl, session;

/** One WebDriver command; throws with the driver's message on an error answer. */
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

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'; // the W3C WebDriver element key
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

async function api(method, path, body) {
  const r = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

async function pause(text) {
  const gen = await api('POST', '/api/agents/demo/generate', { messages: text });
  assert.equal(gen.body.finishReason, 'suspended', JSON.stringify(gen.body));
  const page = await api('GET', `/api/queue?run=${encodeURIComponent(gen.body.runId)}`);
  return page.body.items[0];
}

before(async () => {
  assert.ok(BIN, 'APPROVAL_CONSOLE_DESKTOP_BIN must name the built approval-console-desktop');
  assert.ok(DRIVER, 'TAURI_DRIVER must name tauri-driver');
  assert.ok(process.env.DISPLAY, 'run under scripts/with-desktop');
  dir = mkdtempSync(join(tmpdir(), 'desktop-e2e-'));
  const driverPort = await freePort();
  const apiPort = await freePort();
  driverUrl = `http://127.0.0.1:${driverPort}`;
  apiUrl = `http://127.0.0.1:${apiPort}`;
  // WebKitWebDriver starts the app with tauri-driver's environment.
  driver = spawn(DRIVER, ['--port', String(driverPort), '--native-driver', '/usr/bin/WebKitWebDriver'], {
    env: {
      ...process.env,
      APPROVAL_CONSOLE_DATA_DIR: join(dir, 'data'),
      APPROVAL_CONSOLE_PORT: String(apiPort),
      APPROVAL_CONSOLE_TOKEN: TOKEN,
      APPROVAL_CONSOLE_LOG: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(async () => (await fetch(`${driverUrl}/status`)).ok, 'tauri-driver');
  const created = await fetch(`${driverUrl}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'wry', 'tauri:options': { application: BIN } } } }),
  });
  const json = await created.json();
  assert.ok(created.ok, `WebDriver session: ${JSON.stringify(json)}`);
  session = json.value.sessionId;
  await waitFor(async () => (await fetch(`${apiUrl}/api/health`)).ok, "the app's HTTP API");
});

after(async () => {
  if (session) await fetch(`${driverUrl}/session/${session}`, { method: 'DELETE' }).catch(() => {});
  driver?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a paused call shows in the window with its fingerprint, is approved there, and the run finishes', async () => {
  await waitFor(() => find('[data-testid="queue-tab"]'), 'the console in the window');
  const item = await pause('delete rec-window');
  const row = `[data-testid="queue-item"][data-id="${item.id}"]`;
  await waitFor(() => find(row), 'the call in the window, live');
  await click(row);
  await waitFor(() => find('[data-testid="detail"]'), 'the detail');
  assert.equal(await text('[data-testid="fingerprint-full"]'), item.fingerprint);
  assert.equal(await text('[data-testid="fingerprint-short"]'), item.fingerprint.slice(7, 19));
  await click('[data-testid="approve"]');
  const result = await waitFor(() => text('[data-testid="decision-result"]'), 'the decision result');
  assert.match(result, /Approved/);
  const after = (await api('GET', `/api/queue/${item.id}`)).body;
  assert.equal(after.state, 'delivered', JSON.stringify(after));
  assert.match(after.decision.operator, /\(desktop\)$/, 'decided through the window');
  assert.match(JSON.stringify(after.decision.outcome), /rec-window/);
  await waitFor(async () => !(await find(row)), 'the row to leave the pending list');
});

test('a notification tells of a new call and its Approve action approves it', async () => {
  const log = process.env.DUNST_PRINT_LOG;
  const before = (readFileSync(log, 'utf8').match(/summary: /g) || []).length;
  execFileSync('dunstctl', ['close-all']);
  const item = await pause('delete rec-notified');
  await waitFor(() => (readFileSync(log, 'utf8').match(/summary: /g) || []).length > before, 'the notification');
  const shown = readFileSync(log, 'utf8');
  assert.match(shown, /wants to run delete_record/);
  assert.ok(shown.includes(item.fingerprint.slice(7, 19)), 'the short fingerprint is in the notification');
  writeFileSync(process.env.DUNST_CHOICE_FILE, 'Approve\n');
  execFileSync('dunstctl', ['context']);
  const after = await waitFor(async () => {
    const it = (await api('GET', `/api/queue/${item.id}`)).body;
    return it.state === 'delivered' ? it : null;
  }, 'the call approved from the notification');
  assert.match(after.decision.operator, /\(notification\)$/);
  await waitFor(async () => !(await find(`[data-testid="queue-item"][data-id="${item.id}"]`)), 'the window to drop the row');
});
