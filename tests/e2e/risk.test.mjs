// Issue 27: a call's risk, judged by the server from its arguments, in the real UI. A Claude Code
// `Bash` call that force-pushes to main is marked in its row and its detail with the reason, offers
// no "always allow", and is approved only through the confirm step that says it is high risk (and asks
// for a deliberate act: deliberate.test.mjs); the
// server refuses a grant made from it. An ordinary `Bash` call of the same tool shows no risk and
// offers "always allow".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

/** Submits a Claude Code `Bash` call as an agent would (`POST /api/calls`); answers its id and fingerprint. */
async function submitBash(server, command) {
  const body = { tool: 'Bash', args: { command }, agent: 'claude-code', source: 'claude-code', context: { cwd: '/home/dev/project' } };
  const res = await server.api('POST', '/api/calls', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

test('a high-risk call shows its risk and reason, offers no "always allow", and is approved only through its confirm step', async () => {
  const { server, browser } = ctx;
  const push = await submitBash(server, 'git push --force origin main');
  const plain = await submitBash(server, 'git status');
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    await openConsole(page, server);
    // The row: a badge with the level, the reason in its title.
    const badge = row(page, push.id).locator('[data-testid="row-risk"]');
    await badge.waitFor();
    assert.equal(await badge.getAttribute('data-level'), 'high');
    assert.match(await badge.getAttribute('title'), /force push to a protected branch/);
    assert.equal(await row(page, plain.id).locator('[data-testid="row-risk"]').count(), 0, 'a low call has no badge');

    // The detail: the level, every reason as text, the high-risk mark, and no "always allow".
    await row(page, push.id).click();
    const detail = page.locator(`[data-testid="detail"][data-id="${push.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    const note = detail.locator('[data-testid="detail-risk"]');
    assert.equal(await note.getAttribute('data-level'), 'high');
    assert.deepEqual(await detail.locator('[data-testid="detail-risk-reason"]').allTextContents(), ['force push to a protected branch']);
    assert.equal(await detail.locator('[data-testid="detail-high-risk"]').count(), 1);
    assert.equal(await detail.locator('[data-testid="grant-open"]').count(), 0, 'no "always allow" for a high-risk call');

    // The server refuses a grant from it too, whatever a client shows.
    const refused = await server.api('POST', '/api/grants', {
      fromItem: push.id,
      fingerprint: push.fingerprint,
      scope: 'agent',
      conditions: [{ pointer: '/command', op: 'regex', value: 'git .*' }],
      expiresInSecs: 3600,
    });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'high_risk_tool');

    // Approve asks first, saying it is high risk; nothing is sent before the confirm, which (issue 45)
    // is a deliberate act: here the tool's name typed.
    await detail.locator('[data-testid="approve"]').click();
    const step = detail.locator('[data-testid="approve-confirm-step"]');
    await step.waitFor();
    assert.equal(await step.locator('[data-high-risk="true"]').count(), 1, 'the confirm step says it is high risk');
    assert.equal((await server.api('GET', `/api/queue/${push.id}`)).body.state, 'pending', 'nothing sent before the confirm');
    assert.equal(await detail.locator('[data-testid="approve-confirm"]').isDisabled(), true, 'no quick confirm for a high-risk call');
    await step.locator('[data-testid="approve-type"]').fill('Bash');
    await detail.locator('[data-testid="approve-confirm"]').click();
    await waitFor(async () => (await server.api('GET', `/api/queue/${push.id}`)).body.decision?.kind === 'approve', 'the approval');

    // The ordinary call of the same tool: no risk note, and "always allow" is offered.
    await row(page, plain.id).click();
    const other = page.locator(`[data-testid="detail"][data-id="${plain.id}"]`);
    await other.locator('[data-testid="grant-open"]').waitFor();
    assert.equal(await other.locator('[data-testid="detail-risk"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a file edit shows what it changes in its row and a diff against the file in its detail, hidden characters marked', async () => {
  const { server, browser } = ctx;
  const before = 'import os\n\ndef transfer(amount):\n    limit = 100\n    return send(amount, limit)\n';
  const body = {
    tool: 'Edit',
    args: { file_path: '/home/dev/project/src/pay.py', old_string: '    limit = 100\n', new_string: '    limit = 10_000\u202E\n' },
    agent: 'claude-code',
    source: 'claude-code',
    context: { cwd: '/home/dev/project', file: { path: '/home/dev/project/src/pay.py', exists: true, text: before } },
  };
  const res = await server.api('POST', '/api/calls', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    await openConsole(page, server);
    const summary = row(page, res.body.id).locator('[data-testid="queue-item-summary"]');
    await summary.waitFor();
    assert.equal(await summary.getAttribute('data-what'), 'changes');
    assert.equal((await summary.locator('.summary-text').textContent()).trim(), 'edits 1 line in src/pay.py');
    assert.equal(await summary.locator('[data-testid="queue-item-marked"]').count(), 1, 'the hidden character in its arguments is flagged');
    await row(page, res.body.id).click();
    const detail = page.locator(`[data-testid="detail"][data-id="${res.body.id}"]`);
    const file = detail.locator('[data-testid="changes-file"]');
    await file.waitFor();
    assert.equal(await file.getAttribute('data-against-disk'), 'true');
    assert.equal(await file.locator('[data-testid="changes-path"]').textContent(), 'src/pay.py');
    const kinds = await file.locator('[data-testid="changes-diff"] .line').evaluateAll((ls) => ls.map((l) => l.dataset.kind));
    assert.deepEqual(kinds, ['hunk', 'context', 'context', 'context', 'removed', 'added', 'context']);
    const added = file.locator('[data-testid="changes-diff"] .line[data-kind="added"]');
    assert.equal(await added.locator('[data-mark="hidden"]').textContent(), '\\u{202E}', 'the hidden character is shown as an escape');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a local-engine call's detail shows what led to it: the run's messages, as untrusted text", async () => {
  const { server, browser } = ctx;
  const item = await server.waitForItem(await server.generate('delete rec-<b>why</b>'));
  const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    await openConsole(page, server);
    await row(page, item.id).click();
    const reason = page.locator(`[data-testid="detail"][data-id="${item.id}"] [data-testid="reason"]`);
    await reason.waitFor();
    assert.equal(await reason.getAttribute('data-source'), 'engine');
    const first = reason.locator('[data-testid="reason-message"]').first();
    assert.equal(await first.getAttribute('data-role'), 'user');
    assert.match(await first.textContent(), /delete rec-<b>why<\/b>/);
    assert.equal(await reason.locator('b').count(), 0, 'never markup');
    assert.match(await reason.textContent(), /untrusted/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
