// Issue 25: the audit tables keep times and names whole at a narrow width — a date and time on one
// line, never broken mid-number; the grant that decided named by what it allows (issue 45: not by
// its raw id), its tool on one line — while arguments of any length still wrap rather than widen the
// page: in chromium. Issue 45: the audit's filters at a desktop's and a phone's size, light and dark.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, openConsole, serverAndBrowser, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();

/** How many lines the element's text takes (an inline box broken over lines has a rect per line). */
const lines = (locator) => locator.evaluate((el) => new Set([...el.getClientRects()].map((r) => Math.round(r.top))).size);

test('times and grant ids stay on one line in the audit log of a narrow window', async () => {
  const { server } = ctx;
  const long = 'x'.repeat(300);
  const item = await server.waitForItem(await server.generate(`delete ${long}`));
  const grant = await server.api('POST', '/api/grants', {
    fromItem: item.id,
    fingerprint: item.fingerprint,
    scope: 'run',
    conditions: [{ pointer: '/id', op: 'equals', value: long }],
    expiresInSecs: 3600,
  });
  assert.equal(grant.status, 201, JSON.stringify(grant.body));

  const { page, problems, close } = await newPage(ctx.browser, { viewport: { width: 760, height: 700 } });
  try {
    await openConsole(page, server);
    await page.locator('[data-testid="audit-tab"]').click();
    // The call the grant approved at once: its decision's operator is the grant, named by what it
    // allows (its id only in the title).
    const operator = page.locator(`[data-testid="audit-entry"][data-kind="decision"][data-item-id="${item.id}"] [data-testid="history-operator"]`);
    await operator.waitFor({ timeout: 15_000 });
    const named = operator.locator('[data-testid="audit-grant"]');
    assert.equal(await named.getAttribute('data-grant-id'), grant.body.grant.id);
    assert.match((await operator.textContent()).replace(/\s+/g, ' ').trim(), /^Always allow delete_record \(one run of demo\) · 1 condition · made by /);
    assert.ok(!(await operator.textContent()).includes(grant.body.grant.id), 'no raw id in the cell');
    assert.equal(await lines(named.locator('strong').first()), 1, 'the tool is on one line');
    const times = page.locator('[data-testid="audit-time"]');
    assert.ok((await times.count()) > 0);
    for (let i = 0; i < (await times.count()); i++) assert.equal(await lines(times.nth(i)), 1, `time ${i} on one line`);
    await page.locator('[data-testid="audit-mode-entries"]').click();
    await page.locator('[data-testid="audit-entry"][data-kind="entry"]').first().waitFor();
    for (let i = 0; i < (await times.count()); i++) assert.equal(await lines(times.nth(i)), 1, `entry time ${i} on one line`);
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
    assert.ok(narrow, 'the page does not grow wider than the window (a wide table scrolls in its own pane)');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844, isMobile: true, hasTouch: true },
];

test('the audit filters by source, agent, action and day show agent and source columns and what became of each call, at both sizes, light and dark', async () => {
  const { server } = ctx;
  // A local call approved, and a call an agent submitted over HTTP, approved: handed to the agent.
  const local = await server.waitForItem(await server.generate('delete rec-filters'));
  await server.api('POST', `/api/queue/${local.id}/approve`, { fingerprint: local.fingerprint });
  const made = await server.api('POST', '/api/tokens', { name: 'filters-bot', role: 'agent', sources: ['http'] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const submit = await fetch(`${server.base}/api/calls`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${made.body.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'filters-1' },
    body: JSON.stringify({ tool: 'send_email', args: { to: 'ops@example.com' }, agent: 'filters-bot' }),
  });
  assert.equal(submit.status, 201);
  const http = (await server.api('GET', `/api/queue/${(await submit.json()).id}`)).body;
  await server.api('POST', `/api/queue/${http.id}/approve`, { fingerprint: http.fingerprint });

  for (const { width, height, ...device } of SIZES) {
    for (const scheme of ['light', 'dark']) {
      const { page, problems, close } = await newPage(ctx.browser, { viewport: { width, height }, colorScheme: scheme, ...device });
      const at = `${width} ${scheme}`;
      try {
        await openConsole(page, server);
        await page.locator('[data-testid="audit-tab"]').click();
        const decision = (id) => page.locator(`[data-testid="audit-entry"][data-kind="decision"][data-item-id="${id}"]`);
        await decision(http.id).waitFor({ timeout: 15_000 });
        await decision(local.id).waitFor();
        // Agent and source columns; what became of the submitted call, in words.
        assert.equal((await decision(http.id).locator('[data-testid="history-source"]').textContent()).trim(), 'HTTP', at);
        assert.equal((await decision(http.id).locator('[data-testid="history-agent"]').textContent()).trim(), 'filters-bot', at);
        await waitFor(async () => (await decision(http.id).getAttribute('data-outcome')) === 'handedOver', 'the submitted call handed over');
        assert.equal(await decision(http.id).locator('[data-testid="history-outcome"]').textContent(), 'handed to the agent');
        assert.ok(!(await page.locator('.audit').textContent()).includes('handedOver'), `${at}: no developer string`);

        // By source: the HTTP call alone.
        await page.locator('[data-testid="audit-filter-source"]').selectOption('http');
        await waitFor(async () => (await decision(local.id).count()) === 0 && (await decision(http.id).count()) === 1, 'the HTTP call alone');
        // By agent (typed, then Enter), and by day: today keeps it, tomorrow leaves nothing.
        await page.locator('[data-testid="audit-filter-source"]').selectOption('');
        await page.locator('[data-testid="audit-filter-agent"]').fill('demo');
        await page.locator('[data-testid="audit-filter-agent"]').press('Enter');
        await waitFor(async () => (await decision(http.id).count()) === 0 && (await decision(local.id).count()) === 1, "the demo agent's call alone");
        const day = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
        await page.locator('[data-testid="audit-filter-from"]').fill(day(new Date()));
        await decision(local.id).waitFor();
        await page.locator('[data-testid="audit-filter-from"]').fill(day(new Date(Date.now() + 86_400_000)));
        await page.locator('[data-testid="history-empty"]').waitFor();
        assert.equal((await page.locator('[data-testid="history-empty"]').textContent()).trim(), 'Nothing matches these filters.');
        // By action, in the whole log.
        await page.locator('[data-testid="audit-filter-clear"]').click();
        await page.locator('[data-testid="audit-mode-entries"]').click();
        await page.locator('[data-testid="audit-filter-action"]').selectOption('delivery');
        await waitFor(async () => {
          const actions = await page.locator('[data-testid="audit-entry"][data-kind="entry"]').evaluateAll((els) => els.map((e) => e.dataset.action));
          return actions.length > 0 && actions.every((a) => a.startsWith('delivery.'));
        }, 'only deliveries');
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(sideways <= 0, `${at}: the page scrolls ${sideways} px sideways`);
        if (width < 600) {
          // A phone: each entry is a card of labelled lines, no table to scroll.
          const display = await page.locator('[data-testid="audit-entry"]').first().evaluate((el) => getComputedStyle(el).display);
          assert.equal(display, 'block', at);
        }
        assert.deepEqual(problems, [], at);
      } finally {
        await close();
      }
    }
  }
});
