// Edit-then-approve: a local-engine call is approved with other arguments typed in the browser, and
// the tool runs with those, bound to the fingerprint of the call as it was shown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('a call approved with edited arguments runs with them and records both fingerprints', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    const gen = await ctx.server.generate('delete rec-1');
    const item = await ctx.server.waitForItem(gen);
    const path = `/api/queue/${encodeURIComponent(item.id)}`;
    const shown = (await ctx.server.api('GET', path)).body;
    assert.ok(shown.allowed.includes('edit'), 'the local engine allows edits');

    await row(page, item.id).click();
    const detail = page.locator('[data-testid="detail"]');
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    await detail.locator('[data-testid="edit-args-open"]').click();
    const text = detail.locator('[data-testid="edit-text"]');
    assert.deepEqual(JSON.parse(await text.inputValue()), shown.args);

    await text.fill('{"id": "rec-9"');
    assert.equal(await detail.locator('[data-testid="edit-parse"]').getAttribute('data-ok'), 'false');
    await text.fill('{"id": "rec-9"}');
    const fp = detail.locator('[data-testid="edit-fingerprint-full"]');
    await fp.waitFor();
    const editedFp = await fp.textContent();
    assert.match(editedFp, /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(editedFp, shown.fingerprint);
    assert.match(await detail.locator('[data-testid="edit-changes"]').textContent(), /changed\s*\/id/);

    await detail.locator('[data-testid="approve-edited"]').click();
    // Asked first, like Approve, showing the edit as a diff of the arguments (issue 27).
    const diff = detail.locator('[data-testid="approve-confirm-step"] [data-testid="edit-diff"]');
    await diff.waitFor();
    assert.deepEqual(await diff.locator('.line[data-kind="removed"], .line[data-kind="added"]').allTextContents(), [
      `removed -  "id": "${shown.args.id}"`,
      'added +  "id": "rec-9"',
    ]);
    await detail.locator('[data-testid="approve-confirm"]').click();
    const result = page.locator('[data-testid="decision-result"]');
    await result.waitFor();
    assert.match(await result.locator('[data-testid="decision-kind"]').textContent(), /Approved with edited arguments/);

    let decided;
    await waitFor(async () => {
      decided = (await ctx.server.api('GET', path)).body;
      return decided.decision?.outcome != null;
    }, 'the edited call to run');
    assert.equal(decided.decision.kind, 'edit');
    assert.equal(decided.decision.fingerprint, shown.fingerprint);
    assert.equal(decided.decision.editedFingerprint, editedFp);
    assert.deepEqual(decided.decision.data, { id: 'rec-9' });
    assert.deepEqual(decided.decision.outcome.result, { deleted: 'rec-9' });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
