// The desktop window end to end, through WebDriver: tauri-driver + WebKitWebDriver drive the real
// approval-console-desktop binary under Xvfb, with a real dunst for its notifications.
//
//   scripts/with-desktop node --test tests/desktop/window.test.mjs
//
// Env: see driver.mjs, and the variables scripts/with-desktop sets (DUNST_PRINT_LOG, DUNST_CHOICE_FILE).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { openDesktop, waitFor } from './driver.mjs';

let desktop;
before(async () => {
  desktop = await openDesktop();
});
after(async () => {
  await desktop?.close();
});
const find = (css) => desktop.find(css);
const text = (css) => desktop.text(css);
const click = (css) => desktop.click(css);
const api = (method, path, body) => desktop.api(method, path, body);
const pause = (t) => desktop.pause(t);

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
  // Every approval asks first: the confirm step's button sends it.
  await waitFor(() => find('[data-testid="approve-confirm"]'), 'the confirm step');
  await click('[data-testid="approve-confirm"]');
  const result = await waitFor(() => text('[data-testid="decision-result"]'), 'the decision result');
  assert.match(result, /Approved/);
  // Answered once committed, delivered just after (issue 46).
  const after = await waitFor(async () => {
    const it = (await api('GET', `/api/queue/${item.id}`)).body;
    return it.state === 'decided' ? null : it;
  }, 'the approval delivered');
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

test('the audit export buttons save a file the operator can find, and the window says where', async () => {
  await click('[data-testid="audit-tab"]');
  await click('[data-testid="export-csv"]');
  const done = await waitFor(() => text('[data-testid="export-done"]'), 'the export saved');
  const path = done.match(/(\/\S+\.csv)/)?.[1];
  assert.ok(path, `a path in ${JSON.stringify(done)}`);
  try {
    const csv = readFileSync(path, 'utf8');
    assert.ok(csv.startsWith('seq,at,actor,action,'), csv.slice(0, 80));
    assert.match(csv, /decision\.approve/, 'the approvals above are in it');
  } finally {
    unlinkSync(path);
  }
  await click('[data-testid="queue-tab"]');
});

test("日本語 chosen in the window: the app's next notification is in Japanese too", async () => {
  const log = process.env.DUNST_PRINT_LOG;
  await click('[data-testid="settings-tab"]');
  await click('[data-testid="language-ja"]');
  await waitFor(async () => (await text('[data-testid="settings-tab"]')) === '設定', 'the window in Japanese');
  try {
    const before = (readFileSync(log, 'utf8').match(/summary: /g) || []).length;
    execFileSync('dunstctl', ['close-all']);
    await pause('delete rec-ja-window');
    await waitFor(() => (readFileSync(log, 'utf8').match(/summary: /g) || []).length > before, 'the notification');
    const shown = readFileSync(log, 'utf8').split('summary: ').slice(before + 1).join('');
    assert.match(shown, /delete_record の実行を求めています/);
  } finally {
    await click('[data-testid="language-system"]');
    await click('[data-testid="queue-tab"]');
  }
});
