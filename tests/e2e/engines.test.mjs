// Remote engines in the UI: add one where nothing listens, see it unreachable with its error after
// "Sync now", remove it through the confirm step. Nothing is mocked: the server really tries to connect.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

// Port 9 (discard) on loopback: nothing listens there, so connections are refused at once.
const DEAD_URL = 'http://127.0.0.1:9';

test('an engine where nothing listens is listed as unreachable with its error, and can be removed', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    await page.locator('[data-testid="engines-tab"]').click();
    await page.locator('[data-testid="engines-view"]').waitFor();
    await page.locator('[data-testid="engines-empty"]').waitFor();

    await page.getByLabel(/^Name/).fill('nowhere');
    await page.getByLabel(/^Base URL/).fill(DEAD_URL);
    assert.equal(await page.locator('[data-testid="add-engine-token"]').getAttribute('type'), 'password');
    assert.equal(await page.locator('[data-testid="add-engine-poll"]').inputValue(), '1000');
    await page.locator('[data-testid="add-engine-submit"]').click();

    const card = page.locator('[data-testid="engine"][data-name="nowhere"]');
    await card.waitFor({ timeout: 15_000 });
    assert.equal(await card.locator('[data-testid="engine-url"]').textContent(), DEAD_URL);
    assert.equal(await card.locator('[data-testid="engine-token"]').textContent(), 'no token');

    await card.locator('[data-testid="engine-sync"]').click();
    const syncError = card.locator('[data-testid="engine-sync-error"]');
    await syncError.waitFor({ timeout: 30_000 });
    assert.equal(await syncError.getAttribute('data-code'), 'engine_unreachable');
    assert.ok((await syncError.locator('[data-testid="engine-sync-error-message"]').textContent()).trim().length > 0, 'the server says why');

    await waitFor(async () => (await card.getAttribute('data-health')) === 'unreachable', 'the engine to show as unreachable');
    assert.equal((await card.locator('[data-testid="engine-health"]').textContent()).trim(), 'unreachable');
    const lastError = (await card.locator('[data-testid="engine-last-error"]').textContent()).trim();
    assert.ok(lastError.length > 0, 'a last error is shown');
    await card.locator('[data-testid="engine-last-error-at"]').waitFor();

    // The API agrees.
    const listed = (await ctx.server.api('GET', '/api/engines')).body;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].health.state, 'unreachable');

    // Remove: nothing happens before the confirm step.
    await card.locator('[data-testid="engine-remove"]').click();
    const confirm = card.locator('[data-testid="engine-remove-confirm"]');
    await confirm.waitFor();
    assert.equal((await ctx.server.api('GET', '/api/engines')).body.length, 1);
    // Focus moved to the confirm button; Enter confirms.
    assert.equal(await confirm.evaluate((el) => el === document.activeElement), true);
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await page.locator('[data-testid="engines-empty"]').waitFor();
    assert.deepEqual((await ctx.server.api('GET', '/api/engines')).body, []);

    // The browser logs the refused sync (503 engine_unreachable) as a failed resource load: expected.
    const expected = /^console\.error: Failed to load resource: the server responded with a status of 503\b/;
    assert.deepEqual(problems.filter((p) => !expected.test(p)), []);
  } finally {
    await close();
  }
});

// Issue 45: an empty queue shows the next step — how to connect Claude Code, an HTTP agent or an MCP
// server — with a button that makes the agent token; an agent using it shows up in the queue and
// under Engines → Sources seen. At a desktop's and a phone's size, light and dark.
const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844, isMobile: true, hasTouch: true },
];
const COMBOS = SIZES.flatMap((size) => ['light', 'dark'].map((scheme) => ({ ...size, scheme })));

test('an empty queue shows how to connect an agent and makes its token; the agent then shows under Sources seen', async () => {
  const { server } = ctx;
  let token = null;
  let name = null;
  for (const [i, { width, height, scheme, ...device }] of COMBOS.entries()) {
    const at = `${width} ${scheme}`;
    const { page, problems, close } = await newPage(ctx.browser, { viewport: { width, height }, colorScheme: scheme, ...device });
    try {
      await openConsole(page, server);
      const connect = page.locator('[data-testid="connect-agents"]');
      await connect.waitFor({ timeout: 15_000 });
      await connect.scrollIntoViewIfNeeded();
      assert.ok(await connect.isVisible(), at);
      // On a phone it shows on the list's own screen: no way back to a list it is already on.
      assert.equal(await page.locator('[data-testid="back-to-list"]').isVisible(), false, at);
      assert.equal((await page.locator('[data-testid="queue-nothing-waiting"]').textContent()).trim(), 'Nothing is waiting for a decision.');
      assert.match(await page.locator('[data-testid="connect-lines"]').textContent(), /approval-console hooks install claude-code/);
      // An HTTP agent: its token made here, in the lines to run.
      await page.locator('[data-testid="connect-way"][data-way="http"]').click();
      await page.locator('[data-testid="connect-make-token"]').click();
      await page.locator('[data-testid="connect-token-made"]').waitFor();
      const lines = await page.locator('[data-testid="connect-lines"]').textContent();
      token = lines.match(/Bearer (\S+)"/)[1];
      assert.notEqual(token, 'ac_…', at);
      assert.ok(lines.includes(server.base), `${at}: the lines name this console: ${lines}`);
      name = (await page.locator('[data-testid="connect-token-made"]').textContent()).match(/Token (\S+) made/)[1];
      const listed = (await server.api('GET', '/api/tokens')).body.find((c) => c.name === name);
      assert.equal(listed.role, 'agent', at);
      assert.deepEqual(listed.sources, ['http'], at);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(sideways <= 0, `${at}: the page scrolls ${sideways} px sideways`);

      if (i === COMBOS.length - 1) {
        // The agent asks before a call, with the token it was given: the queue shows it, the next step goes.
        const r = await fetch(`${server.base}/api/calls`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'first-call' },
          body: JSON.stringify({ tool: 'send_email', args: { to: 'ops@example.com' }, agent: 'my-agent' }),
        });
        assert.equal(r.status, 201);
        await waitFor(async () => (await page.locator('[data-testid="pending-count"]').textContent()).trim() === '1', 'the call in the queue');
        await connect.waitFor({ state: 'detached' });
        await page.locator('[data-testid="engines-tab"]').click();
        const seen = page.locator('[data-testid="source-seen"][data-source="http"]');
        await seen.waitFor({ timeout: 15_000 });
        assert.equal((await seen.locator('[data-testid="source-agent"]').textContent()).trim(), name);
        assert.equal((await seen.locator('[data-testid="source-pending"]').textContent()).trim(), '1');
      }
      assert.deepEqual(problems, [], at);
    } finally {
      await close();
    }
  }
});
