// Accessibility (issue 6, item 10): axe-core over the console's main views, in the light and the dark
// theme, against the real server: the queue with calls and an approval's detail, a suspend() call's
// detail with its resume form, a decided call's result, the audit log, the engines view (with an
// unreachable engine's card), an approval's "always allow" form, the grants view, settings with time
// limits and a channel (its secret's field), and the shortcut help dialog. No serious or critical
// violation may remain; colour contrast is among axe's rules and stays on. Of the moderate rules,
// the landmark ones (`landmark-one-main`, `region`) must pass too; other moderate and minor findings
// are printed as diagnostics (`# …` lines), not failed on.
//
// How axe gets in: the app's Content-Security-Policy is `script-src 'self'`, so an inline <script>
// (page.addScriptTag({content})) is refused; axe's source is evaluated through the DevTools protocol
// instead (page.evaluate of its text), which the page's CSP does not govern. No CSP bypass is used, so
// the page is audited exactly as it runs. The first check below proves the inline route is blocked.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, useTheme, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const BLOCKING = new Set(['serious', 'critical']);
/** Moderate rules that must pass all the same: every view's content sits in landmarks, under one <main>. */
const REQUIRED = new Set(['landmark-one-main', 'region']);

/** A console page in `theme`, chosen the way the operator's choice is stored, before the app starts. */
async function themedConsole(theme) {
  const p = await newPage(ctx.browser, { viewport: { width: 1280, height: 800 }, colorScheme: theme });
  await useTheme(p.page, theme);
  await openConsole(p.page, ctx.server);
  assert.equal(await p.page.evaluate(() => document.documentElement.dataset.theme), theme, `the console is in the ${theme} theme`);
  return p;
}

/** Runs axe over the whole page; fails listing each serious or critical violation; returns the rest. */
async function audit(page, view) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  // Let transitions and the live list settle before colours are measured.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const describe = (v) =>
    `${v.id} (${v.impact}): ${v.help}\n    ${v.helpUrl}\n` +
    v.nodes
      .slice(0, 8)
      .map((n) => `    - ${n.target.join(' ')}${n.failureSummary ? `\n      ${n.failureSummary.replace(/\n/g, '\n      ')}` : ''}`)
      .join('\n');
  const blocks = (v) => BLOCKING.has(v.impact) || REQUIRED.has(v.id);
  const blocking = result.violations.filter(blocks);
  const other = result.violations.filter((v) => !blocks(v));
  for (const v of other) console.log(`# ${view}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(blocking.map(describe), [], `${view}: serious or critical accessibility violations (or landmarks missing)`);
  // axe really ran its rules, colour contrast among them.
  assert.ok(result.testEngine?.name === 'axe-core' && result.testRunner, `${view}: axe ran`);
  return other;
}

/**
 * Proves the audit in this page would fail on bad contrast: a paragraph put into the page grey on
 * grey (styled through the CSSOM, which the CSP allows) must come back as a serious color-contrast
 * violation. It is removed again.
 */
async function selfCheckAxe(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const p = document.createElement('p');
    p.textContent = 'contrast self-check';
    p.style.color = '#777';
    p.style.background = '#888';
    document.querySelector('main').prepend(p);
    try {
      const r = await window.axe.run(p, { runOnly: ['color-contrast'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact }));
    } finally {
      p.remove();
    }
  });
  assert.deepEqual(found, [{ id: 'color-contrast', impact: 'serious' }], 'axe reports grey-on-grey text');
}

test('axe cannot come in as an inline script: the page CSP refuses it', async () => {
  const { page, problems, close } = await newPage(ctx.browser);
  try {
    await openConsole(page, ctx.server);
    await page.addScriptTag({ content: 'window.__inlineRan = true;' }).catch(() => {});
    assert.equal(await page.evaluate(() => window.__inlineRan), undefined, 'an inline <script> did not run');
    await waitFor(() => problems.some((p) => /Content Security Policy/.test(p)), 'the CSP refusal in the console');
  } finally {
    await close();
  }
});

test('the console has no serious or critical axe violations, in the light and the dark theme', async () => {
  const { server } = ctx;
  // Calls to look at: an approval, a suspend() with its resume form, and one declined for the audit log.
  const approval = await server.waitForItem(await server.generate('delete invoice-2024-0042'));
  const suspend = await server.waitForItem(await server.generate('ask Which region should the backup go to?'));
  const declined = await server.waitForItem(await server.generate('delete rec-9'));
  const r = await server.api('POST', `/api/queue/${encodeURIComponent(declined.id)}/decline`, { fingerprint: declined.fingerprint, reason: 'not today' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // An engine where nothing listens, so the engines view has a card with its error.
  const added = await server.api('POST', '/api/engines', { name: 'nowhere', baseUrl: 'http://127.0.0.1:9' });
  assert.ok(added.status < 300, JSON.stringify(added.body));
  // A grant for the grants view: for its own run and id only, so it approves no other call here.
  const granted = await server.waitForItem(await server.generate('delete rec-granted'));
  const grant = await server.api('POST', '/api/grants', {
    fromItem: granted.id,
    fingerprint: granted.fingerprint,
    scope: 'run',
    conditions: [{ pointer: '/id', op: 'equals', value: 'rec-granted' }],
    expiresInSecs: 3600,
  });
  assert.equal(grant.status, 201, JSON.stringify(grant.body));
  // Time limits for the settings view's editor (long enough never to expire a call of this test).
  const limits = await server.api('PUT', '/api/settings/expiry', { rules: [{ tool: 'ask_operator', afterSecs: 86_400 }], warnBeforeSecs: 300 });
  assert.equal(limits.status, 200, JSON.stringify(limits.body));
  // A channel with its secret set, for the settings view's channel editor (off: nothing is sent).
  const secret = await server.api('PUT', '/api/settings/reach/channels/ops-hook/secret', { value: 'a11y-key' });
  assert.equal(secret.status, 200, JSON.stringify(secret.body));
  const channel = { name: 'ops-hook', kind: 'webhook', person: 'ops', target: 'http://127.0.0.1:9/hook', enabled: false };
  const reach = await server.api('PUT', '/api/settings/reach', { channels: [channel] });
  assert.equal(reach.status, 200, JSON.stringify(reach.body));

  const timings = [];
  for (const theme of ['light', 'dark']) {
    const { page, close } = await themedConsole(theme);
    const t0 = Date.now();
    try {
      await selfCheckAxe(page);
      await row(page, approval.id).click();
      await page.locator(`[data-testid="detail"][data-id="${approval.id}"] [data-testid="fingerprint-check"][data-status="verified"]`).waitFor();
      await audit(page, `${theme}: queue and an approval's detail`);
      await page.locator(`[data-testid="detail"][data-id="${approval.id}"] [data-testid="grant-open"]`).click();
      await page.locator('[data-testid="grant-form"]').waitFor();
      await audit(page, `${theme}: an approval's "always allow" form`);

      await row(page, suspend.id).click();
      await page.locator(`[data-testid="detail"][data-id="${suspend.id}"] [data-testid="resume-form"]`).waitFor();
      await audit(page, `${theme}: a suspend() call's detail and resume form`);

      // The help dialog, opened from the list with `?`.
      await row(page, suspend.id).focus();
      await page.keyboard.press('?');
      await page.locator('[data-testid="shortcut-help"]').waitFor();
      await audit(page, `${theme}: shortcut help dialog`);
      await page.keyboard.press('Escape');
      await page.locator('[data-testid="shortcut-help"]').waitFor({ state: 'detached' });

      // A decided call: every call listed, the declined one opened.
      await page.locator('[data-testid="state-tab"][data-tab="all"]').click();
      await row(page, declined.id).click();
      await page.locator(`[data-testid="detail"][data-id="${declined.id}"] [data-testid="decision-result"]`).waitFor();
      await audit(page, `${theme}: a declined call's result, all calls listed`);

      await page.locator('[data-testid="audit-tab"]').click();
      await page.locator(`[data-testid="audit-entry"][data-item-id="${declined.id}"]`).first().waitFor({ timeout: 15_000 });
      await page.locator('[data-testid="verify-audit"]').click();
      await page.locator('[data-testid="verify-result"]').waitFor();
      await audit(page, `${theme}: audit log`);

      await page.locator('[data-testid="grants-tab"]').click();
      await page.locator(`[data-testid="grant-row"][data-id="${grant.body.grant.id}"]`).waitFor({ timeout: 15_000 });
      await audit(page, `${theme}: grants`);

      await page.locator('[data-testid="engines-tab"]').click();
      const card = page.locator('[data-testid="engine"][data-name="nowhere"]');
      await card.waitFor({ timeout: 15_000 });
      await waitFor(async () => (await card.getAttribute('data-health')) === 'unreachable', 'the engine to show as unreachable', 30_000);
      await audit(page, `${theme}: engines with an unreachable engine`);

      await page.locator('[data-testid="settings-tab"]').click();
      await page.locator('[data-testid="notify-fields"]').waitFor({ timeout: 15_000 });
      await page.locator('[data-testid="expiry-rule"]').first().waitFor({ timeout: 15_000 });
      await audit(page, `${theme}: settings with time limits`);
    } finally {
      timings.push(`${theme} ${Date.now() - t0} ms`);
      await close();
    }
  }
  console.log(`# axe over 9 views: ${timings.join(', ')}`);
});
