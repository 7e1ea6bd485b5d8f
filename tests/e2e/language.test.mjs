// The console's language in a real browser against the real server: English by default for an
// English browser; 日本語 chosen in Settings applies at once (`<html lang="ja">`, the views' words),
// survives a reload (localStorage), and leaves no serious or critical axe violation on the queue and
// settings; a browser whose locale is ja-JP starts in Japanese with the choice left at "System".
//
// The words checked are the header's tabs, the views' own headings (settings, grants, audit, engines)
// and the language picker, plus `<html lang>`; the queue's and the detail's words are left to their
// own tests.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser } from './helpers.mjs';

const ctx = serverAndBrowser();
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const LANGUAGE_STORAGE_KEY = 'approval-console.language';
const BLOCKING = new Set(['serious', 'critical']);
/** Moderate rules that must pass all the same (as in a11y.test.mjs). */
const REQUIRED = new Set(['landmark-one-main', 'region']);

const htmlLang = (page) => page.evaluate(() => document.documentElement.lang);
const stored = (page) => page.evaluate((key) => window.localStorage.getItem(key), LANGUAGE_STORAGE_KEY);
const textOf = async (locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

async function openView(page, tab, ready) {
  await page.locator(`[data-testid="${tab}-tab"]`).click();
  await page.locator(ready).first().waitFor({ timeout: 15_000 });
}

async function openSettings(page) {
  await openView(page, 'settings', '[data-testid="notify-fields"]');
  await page.locator('[data-testid="language-settings"]').waitFor();
}

/** Runs axe over the whole page; fails listing each serious or critical violation (as a11y.test.mjs does). */
async function audit(page, view) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const describe = (v) =>
    `${v.id} (${v.impact}): ${v.help}\n` +
    v.nodes
      .slice(0, 8)
      .map((n) => `    - ${n.target.join(' ')}${n.failureSummary ? `\n      ${n.failureSummary.replace(/\n/g, '\n      ')}` : ''}`)
      .join('\n');
  const blocks = (v) => BLOCKING.has(v.impact) || REQUIRED.has(v.id);
  for (const v of result.violations.filter((v) => !blocks(v))) console.log(`# ${view}: ${v.id} (${v.impact}) ${v.help}`);
  assert.deepEqual(result.violations.filter(blocks).map(describe), [], `${view}: serious or critical accessibility violations (or landmarks missing)`);
  assert.ok(result.testEngine?.name === 'axe-core', `${view}: axe ran`);
}

test('日本語 chosen in Settings applies at once, survives a reload, and passes axe', async () => {
  const { server } = ctx;
  const call = await server.waitForItem(await server.generate('delete rec-ja'));
  const { page, problems, close } = await newPage(ctx.browser, { locale: 'en-US', viewport: { width: 1280, height: 800 } });
  try {
    await openConsole(page, server);
    assert.equal(await htmlLang(page), 'en', 'an English browser starts in English');
    await openSettings(page);
    assert.equal(await textOf(page.locator('#settings-h')), 'Settings');
    assert.equal(await textOf(page.locator('[data-testid="settings-tab"]')), 'Settings');
    assert.equal(await textOf(page.locator('[data-testid="language-settings"] legend')), 'Language');
    assert.equal(await page.locator('[data-testid="language-system"]').isChecked(), true);
    assert.match(await textOf(page.locator('[data-testid="language-system-now"]')), /English/);
    assert.equal(await stored(page), null, 'nothing stored before a choice');

    await page.locator('[data-testid="language-ja"]').check();
    // At once: no reload, no second click.
    assert.equal(await htmlLang(page), 'ja');
    assert.equal(await textOf(page.locator('#settings-h')), '設定');
    assert.equal(await textOf(page.locator('[data-testid="language-settings"] legend')), '言語');
    assert.equal(await textOf(page.locator('[data-testid="notify-settings"] h3')), '通知と高リスクのツール');
    assert.equal(await textOf(page.locator('[data-testid="expiry-settings"] h3')), '制限時間');
    assert.equal(await textOf(page.locator('[data-testid="appearance-settings"] h3')), '外観');
    assert.equal(await stored(page), 'ja');
    // The header's tabs (the `app` table).
    assert.equal(await textOf(page.locator('[data-testid="settings-tab"]')), '設定');
    assert.equal(await textOf(page.locator('[data-testid="grants-tab"]')), '常に許可');
    assert.equal(await textOf(page.locator('[data-testid="engines-tab"]')), 'エンジン');
    await audit(page, 'settings in Japanese');

    await openView(page, 'grants', '[data-testid="grants-view"]');
    assert.equal(await textOf(page.locator('[data-testid="grants-view"] h2')), '常に許可ルール');
    await openView(page, 'audit', '#audit-h');
    assert.equal(await textOf(page.locator('#audit-h')), '履歴と監査ログ');
    await openView(page, 'engines', '[data-testid="engines-view"]');
    assert.equal(await textOf(page.locator('#engines-h')), 'リモートエンジン');

    // The queue, with a call opened.
    await page.locator('[data-testid="queue-tab"]').click();
    await row(page, call.id).click();
    await page.locator(`[data-testid="detail"][data-id="${call.id}"] [data-testid="fingerprint-check"][data-status="verified"]`).waitFor();
    assert.equal(await htmlLang(page), 'ja');
    await audit(page, 'queue and a detail in Japanese');

    // A new page load: still Japanese, from the stored choice.
    await page.reload();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
    assert.equal(await htmlLang(page), 'ja');
    await openSettings(page);
    assert.equal(await textOf(page.locator('#settings-h')), '設定');
    assert.equal(await page.locator('[data-testid="language-ja"]').isChecked(), true);
    await audit(page, 'settings in Japanese after a reload');

    // Back to English, at once.
    await page.locator('[data-testid="language-en"]').check();
    assert.equal(await htmlLang(page), 'en');
    assert.equal(await textOf(page.locator('#settings-h')), 'Settings');
    assert.equal(await stored(page), 'en');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a browser whose locale is ja-JP starts in Japanese, with the choice left at System', async () => {
  const { page, problems, close } = await newPage(ctx.browser, { locale: 'ja-JP' });
  try {
    await openConsole(page, ctx.server);
    assert.equal(await htmlLang(page), 'ja');
    await openSettings(page);
    assert.equal(await textOf(page.locator('#settings-h')), '設定');
    assert.equal(await page.locator('[data-testid="language-system"]').isChecked(), true);
    assert.match(await textOf(page.locator('[data-testid="language-system-now"]')), /日本語/);
    assert.equal(await stored(page), null, 'following the system stores nothing');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
