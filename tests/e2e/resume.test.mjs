// Scenario (c): a suspend() call is answered through the form generated from its resume schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

test('answering ask_operator through the generated form resumes with {answer}', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    const gen = await ctx.server.generate('ask what colour?');
    assert.equal(gen.suspendPayload.toolName, 'ask_operator');
    const item = await ctx.server.waitForItem(gen);
    assert.equal(item.kind, 'suspend');

    const r = row(page, item.id);
    await r.waitFor({ timeout: 15_000 });
    await r.click();
    const form = page.locator('[data-testid="resume-form"]');
    await form.waitFor();
    assert.match(await page.locator('[data-testid="suspend-payload"]').textContent(), /what colour\?/);

    // Required field left empty: the client refuses before sending anything.
    await form.locator('[data-testid="resume-submit"]').click();
    await form.locator('[data-testid="field-error"][data-path="/answer"]').waitFor();
    assert.equal((await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body.decision, null);

    const answer = form.locator('input[name="answer"]');
    // The field has a visible label.
    const id = await answer.getAttribute('id');
    assert.match(await page.locator(`label[for="${id}"]`).textContent(), /answer/i);
    await answer.fill('blue');
    await form.locator('[data-testid="resume-submit"]').click();

    await page.locator('[data-testid="decision-result"]').waitFor();
    await waitFor(async () => (await r.count()) === 0, 'the answered row to leave the pending list');
    const decided = (await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
    assert.equal(decided.decision.kind, 'resume');
    assert.deepEqual(decided.decision.data, { answer: 'blue' });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
