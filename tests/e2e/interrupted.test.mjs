// Issue 15: a call cut short by a crash, resolved in the real UI. The console (its demo agent's
// delete_record an MCP server that writes a file 1.5 s into the call) is killed with SIGKILL while the
// approved call runs; started again, the call is interrupted, its row asks whether it ran, and the
// detail offers what the call allows. The file is not there (the server died with the console), so
// the operator says it did not run; the run ends and the row says so.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchBrowser, newPage, openConsole, repoRoot, row, startServer, waitFor } from './helpers.mjs';

test('an interrupted call is resolved in the window and its run ends', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'approval-console-e2e-crash-'));
  const effect = join(dataDir, 'side-effect.log');
  const script = join(repoRoot, 'tests/mcp/misbehaving-server.mjs');
  const q = JSON.stringify;
  await writeFile(
    join(dataDir, 'agents.toml'),
    [
      '[[agents]]',
      'id = "demo"',
      'tools = []',
      '[[agents.mcp]]',
      'name = "records"',
      `command = ${q(process.execPath)}`,
      `args = [${q(script)}, "slow-append", ${q(effect)}]`,
      'env = { TOOL_NAME = "delete_record" }',
      '[agents.approval]',
      'tools = { delete_record = true }',
      'idempotent = ["delete_record"]',
      '',
    ].join('\n'),
  );
  let server = await startServer({ dataDir });
  const browser = await launchBrowser();
  try {
    const item = await server.waitForItem(await server.generate('delete rec-crash'));
    // Approve, and kill the console while the tool runs.
    const approving = server.api('POST', `/api/queue/${encodeURIComponent(item.id)}/approve`, { fingerprint: item.fingerprint }).catch(() => null);
    await waitFor(async () => existsSync(`${effect}.started`), 'the call reached the MCP server');
    await server.kill();
    await approving;
    server = await startServer({ dataDir });
    const after = (await server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
    assert.equal(after.state, 'interrupted', JSON.stringify(after));
    assert.deepEqual(after.allowed, ['ran', 'did_not_run', 'run_again']);

    const { page, problems, close } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    try {
      await openConsole(page, server);
      await page.locator('[data-testid="state-tab"][data-tab="decided"]').click();
      const label = row(page, item.id).locator('[data-testid="queue-item-resolution"]');
      await label.waitFor({ timeout: 15_000 });
      assert.equal(await label.getAttribute('data-resolution'), 'needed');
      await row(page, item.id).click();
      const panel = page.locator('[data-testid="interrupted"]');
      await panel.waitFor({ timeout: 15_000 });
      for (const id of ['resolve-ran', 'resolve-did-not-run', 'resolve-run-again']) assert.equal(await panel.locator(`[data-testid="${id}"]`).count(), 1, id);
      // The truth is in the file: no line, so it did not run.
      assert.equal(existsSync(effect), false, 'the side effect never happened');
      await panel.locator('[data-testid="resolve-did-not-run"]').click();
      await page.locator('[data-testid="resolution-summary"][data-kind="did_not_run"]').waitFor({ timeout: 15_000 });
      await waitFor(async () => (await label.getAttribute('data-resolution')) === 'did_not_run', 'the row says it did not run');
      const resolved = (await server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
      assert.equal(resolved.resolution.kind, 'did_not_run');
      assert.match(resolved.resolution.operator, /\(web\)$/);
      assert.deepEqual(resolved.allowed, []);
      const runs = (await server.api('GET', '/api/agents/demo/suspended-runs')).body;
      assert.deepEqual(runs.runs, [], 'the run went on and ended');
      assert.equal(existsSync(effect), false, 'and nothing ran');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  } finally {
    await browser.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
