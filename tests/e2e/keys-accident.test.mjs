// Issue 13: keys never decide by accident. On each kind of call (an approval, a suspended call), in
// the real UI against the real server: each shortcut key, then a sentence typed as if into a field
// ("kbd reason and more": its letters are shortcuts too, its spaces press buttons), then Esc — and
// nothing is decided: no decision request leaves the page, every call is still pending on the
// server, no field keeps the sentence. A key that does not apply says so. Last, a control: `a` and
// Enter does approve, and is seen the same way, so the checks above would catch a decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

/** Every key the help lists, as playwright names them. */
const KEYS = ['j', 'k', 'ArrowDown', 'ArrowUp', 'Home', 'End', 'Space', 'Enter', 'a', 'e', 'd', 'r', '/', '?', 'Escape'];
const SENTENCE = 'kbd reason and more';
/** A decision, as the page would send it. */
const DECISION = /\/api\/queue\/[^/]+\/(approve|approve-edited|decline|resume)$/;

test('no shortcut, followed by typed text and Esc, decides anything, on an approval or a suspended call', async () => {
  const { server, browser } = ctx;
  const ids = [];
  // Two of each kind, so that moving away from the call has somewhere to go.
  for (const msg of ['delete rec-ka-1', 'ask Which region should the backup go to?', 'delete rec-ka-2', 'ask Keep the old backups?']) {
    ids.push((await server.waitForItem(await server.generate(msg))).id);
  }
  const byKind = {};
  for (const id of ids) {
    const it = (await server.api('GET', `/api/queue/${encodeURIComponent(id)}`)).body;
    byKind[it.kind] ??= it;
  }
  assert.ok(byKind.approval && byKind.suspend, JSON.stringify(Object.keys(byKind)));

  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  const sent = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && DECISION.test(new URL(req.url()).pathname)) sent.push(`${req.method()} ${new URL(req.url()).pathname}`);
  });
  const note = page.locator('[data-testid="triage-note"]');
  const allPending = async (where) => {
    for (const id of ids) {
      const it = (await server.api('GET', `/api/queue/${encodeURIComponent(id)}`)).body;
      assert.equal(it.state, 'pending', `${where}: ${it.toolName} ${id} is ${it.state}`);
      assert.equal(it.decision, null, `${where}: ${id} has a decision`);
    }
  };

  try {
    for (const kind of ['approval', 'suspend']) {
      const item = byKind[kind];
      for (const key of KEYS) {
        const where = `${key} on the ${kind} ${item.toolName}`;
        // A fresh page each time: nothing carried over from the key before (a goto that changes
        // only the fragment would not load the page again).
        await page.goto('about:blank');
        await openConsole(page, server);
        await page.locator('[data-testid="queue-item"]').first().waitFor();
        await row(page, item.id).click();
        const detail = page.locator(`[data-testid="detail"][data-id="${item.id}"]`);
        await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();

        await page.keyboard.press(key);
        // What a shortcut that does not apply says (before the sentence's own keys say more).
        if ((kind === 'suspend' && ['a', 'e'].includes(key)) || (kind === 'approval' && key === 'r')) {
          await waitFor(async () => /^\s*\S+ does nothing here: .*The letter keys are paused until you press Esc/.test(await note.textContent()), `${where}: says it does not apply`);
        }
        await page.keyboard.type(SENTENCE);
        await page.keyboard.press('Escape');

        // Nothing went out, nothing is decided, nothing of the sentence waits in a field of a decision.
        assert.deepEqual(sent, [], `${where}: decision requests sent`);
        await allPending(where);
        const fields = await page.locator('[data-testid="detail"] input, [data-testid="detail"] textarea').evaluateAll((els) =>
          els.filter((e) => e.value.includes('reason and more') || e.value.includes('eason and more')).map((e) => e.getAttribute('data-testid') ?? e.name),
        );
        assert.deepEqual(fields, [], `${where}: fields keep the typed text`);
        assert.equal(await page.locator('[data-testid="approve-confirm"]').count(), 0, `${where}: a confirm step is still open`);
        assert.equal(await page.locator('[data-testid="edit-args"]').count(), 0, `${where}: the editor is still open`);
        if (await page.locator('[data-testid="shortcut-help"]').count()) await page.keyboard.press('Escape');
      }
    }

    // A refused key pauses the letters: the sentence neither moved the selection nor opened a field.
    await page.goto('about:blank');
    await openConsole(page, server);
    await row(page, byKind.suspend.id).click();
    await page.locator(`[data-testid="detail"][data-id="${byKind.suspend.id}"] [data-testid="resume-form"]`).waitFor();
    await page.keyboard.press('a');
    await page.keyboard.type(SENTENCE);
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('[data-testid="detail"]').getAttribute('data-id'), byKind.suspend.id);
    assert.match(await note.textContent(), /The letter keys are paused: press Esc first\./);
    await page.keyboard.press('Escape');
    await waitFor(async () => /The keys work again\./.test(await note.textContent()), 'Esc ends the pause');
    assert.deepEqual(sent, []);
    await allPending('after the pause');

    // The control: a, then Enter, approves — seen by the same checks.
    await row(page, byKind.approval.id).click();
    await page.locator(`[data-testid="detail"][data-id="${byKind.approval.id}"] [data-testid="fingerprint-check"][data-status="verified"]`).waitFor();
    await page.keyboard.press('a');
    await page.locator('[data-testid="approve-confirm"]').waitFor();
    assert.deepEqual(sent, [], 'a alone sends nothing');
    await page.keyboard.press('Enter');
    await waitFor(() => sent.length === 1, 'the approval to be sent');
    assert.match(sent[0], /\/approve$/);
    await waitFor(async () => (await server.api('GET', `/api/queue/${encodeURIComponent(byKind.approval.id)}`)).body.state !== 'pending', 'the approval to be stored');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('after a decision the call below the decided one opens, not the top of the list', async () => {
  const { server, browser } = ctx;
  const made = [];
  for (let i = 1; i <= 4; i++) made.push((await server.waitForItem(await server.generate(`delete rec-below-${i}`))).id);
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  try {
    await openConsole(page, server);
    // Only these four: the list filtered by their text.
    await page.locator('[data-testid="queue-search"]').fill('rec-below');
    await page.keyboard.press('Enter');
    const rows = page.locator('[data-testid="queue-item"]');
    await waitFor(async () => (await rows.count()) === 4, 'the four calls listed');
    const order = await rows.evaluateAll((els) => els.map((e) => e.dataset.id));
    // The second row (newest first): the one below it is the third.
    await row(page, order[1]).click();
    await page.locator(`[data-testid="detail"][data-id="${order[1]}"] [data-testid="fingerprint-check"][data-status="verified"]`).waitFor();
    await page.keyboard.press('a');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="detail"][data-id="${order[2]}"]`).waitFor({ timeout: 15_000 });
    await waitFor(async () => (await row(page, order[1]).count()) === 0, 'the approved call to leave the list');
    // Declined from the keyboard too: again the one below.
    await page.locator(`[data-testid="detail"][data-id="${order[2]}"] [data-testid="fingerprint-check"][data-status="verified"]`).waitFor();
    await page.keyboard.press('d');
    await page.keyboard.type('not this one');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="detail"][data-id="${order[3]}"]`).waitFor({ timeout: 15_000 });
    assert.equal((await server.api('GET', `/api/queue/${encodeURIComponent(order[2])}`)).body.decision.reason, 'not this one');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
