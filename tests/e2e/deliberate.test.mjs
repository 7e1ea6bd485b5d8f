// Risk you can feel (issue 45, points 2 and 3), in the real UI against the real server, at 1440×900
// and 390×844, light and dark:
// - a look-alike `update_payee` call (a Cyrillic "а" in the payee, a right-to-left override in a file
//   name) is rated high by the server, with reasons naming the argument and the character, offers no
//   "always allow", and refuses `a` then Enter;
// - a high-risk call (`kubectl --context prod delete …`) ignores a quick Enter or click and is approved
//   by the deliberate act: the button held for a second (pointer, or Enter held on it);
// - a low-risk call still approves with `a` then Enter;
// - the risk chip reads at 4.5:1 in either theme, and the deliberate step passes axe (contrast included).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { newPage, openConsole, row, serverAndBrowser, useTheme, waitFor } from './helpers.mjs';

const ctx = serverAndBrowser();
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const SIZES = [
  { name: 'desktop', width: 1440, height: 900, phone: false },
  { name: 'phone', width: 390, height: 844, phone: true },
];
const THEMES = ['light', 'dark'];

/** Submits a call as an agent would (`POST /api/calls`); answers its id and fingerprint. */
async function submit(server, tool, args, source = 'http') {
  const body = { tool, args, agent: 'e2e-agent', source, context: source === 'claude-code' ? { cwd: '/home/dev/project' } : undefined };
  const res = await server.api('POST', '/api/calls', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const state = async (server, id) => (await server.api('GET', `/api/queue/${id}`)).body;

async function themedPage(size, theme) {
  const p = await newPage(ctx.browser, {
    viewport: { width: size.width, height: size.height },
    colorScheme: theme,
    ...(size.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  await useTheme(p.page, theme);
  await openConsole(p.page, ctx.server);
  assert.equal(await p.page.evaluate(() => document.documentElement.dataset.theme), theme);
  return p;
}

/**
 * Opens a call's detail from its row and waits until its fingerprint is verified (Approve usable).
 * On a phone a call has the screen to itself: the way back to the list first.
 */
async function open(page, id) {
  const back = page.locator('[data-testid="back-to-list"]');
  if (await back.isVisible()) await back.click();
  await row(page, id).click();
  const detail = page.locator(`[data-testid="detail"][data-id="${id}"]`);
  await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
  return detail;
}

/**
 * `a` on the call shown: a deliberate call ignores it for its first 400 ms (and says so), so it is
 * pressed again until the confirm step shows. Answers the step.
 */
async function pressApprove(page, detail) {
  const step = detail.locator('[data-testid="approve-confirm-step"]');
  await waitFor(async () => {
    if (await step.count()) return true;
    await page.keyboard.press('a');
    return (await step.count()) > 0;
  }, 'the confirm step after a');
  return step;
}

/** The contrast ratio of an element's text on its background (both opaque `rgb()`). */
async function chipContrast(chip) {
  const [fg, bg] = await chip.evaluate((el) => {
    const s = getComputedStyle(el);
    return [s.color, s.backgroundColor];
  });
  const lum = (rgb) => {
    const [r, g, b] = rgb.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((c) => {
      const v = c / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return { ratio: (a + 0.05) / (b + 0.05), bg };
}

/** axe over the confirm step (contrast included): its serious and critical violations, as text. */
async function axeStep(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document.querySelector('[data-testid="approve-confirm-step"]'), { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const size of SIZES) {
  for (const theme of THEMES) {
    test(`${size.name} ${size.width}×${size.height}, ${theme}: a look-alike call is rated high and refuses a+Enter, a high-risk call needs the hold, a low one approves with a+Enter`, async () => {
      const { server } = ctx;
      const tag = `${size.name}-${theme}`;
      const spoof = await submit(server, 'update_payee', {
        vendor: `v-${tag}`,
        payee: 'Acme P\u0430yments Ltd',
        invoice: 'invoice-\u202Efdp.exe',
      });
      const push = await submit(server, 'Bash', { command: `kubectl --context prod delete deployment payments-${tag}` }, 'claude-code');
      const plain = await submit(server, 'lookup_record', { id: `rec-${tag}` });
      const { page, problems, close } = await themedPage(size, theme);
      try {
        // The look-alike call: rated high by the server, the reasons naming the argument and the character.
        let detail = await open(page, spoof.id);
        const note = detail.locator('[data-testid="detail-risk"]');
        assert.equal(await note.getAttribute('data-level'), 'high');
        const reasons = await detail.locator('[data-testid="detail-risk-reason"]').allTextContents();
        assert.ok(reasons.some((r) => r.includes('/payee') && r.includes("U+0430 CYRILLIC SMALL LETTER A looks like 'a'")), reasons.join(' | '));
        assert.ok(reasons.some((r) => r.includes('/invoice') && r.includes('U+202E RIGHT-TO-LEFT OVERRIDE')), reasons.join(' | '));
        const chip = detail.locator('[data-testid="detail-risk-chip"]');
        assert.equal(await chip.textContent(), 'High');
        const high = await chipContrast(chip);
        assert.ok(high.ratio >= 4.5, `the High chip reads at ${high.ratio.toFixed(2)}:1 in ${theme}`);
        assert.equal(await detail.locator('[data-testid="grant-open"]').count(), 0, 'no "always allow" for a look-alike call');
        assert.equal(await detail.locator('[data-testid="approve"]').getAttribute('data-deliberate'), 'true');

        // a then Enter: the step opens, repeats the reasons and the characters' warning, and the Enter approves nothing.
        let step = await pressApprove(page, detail);
        assert.equal(await step.getAttribute('data-deliberate'), 'true');
        assert.match(await step.locator('[data-testid="approve-confirm-reasons"]').textContent(), /U\+0430 CYRILLIC SMALL LETTER A/);
        assert.match(await step.locator('[data-testid="approve-confirm-warnings"]').textContent(), /U\+202E RIGHT-TO-LEFT OVERRIDE/);
        assert.deepEqual(await axeStep(page), [], `the deliberate step passes axe in ${theme}`);
        const hint = await step.locator('[data-high-risk="true"]').textContent();
        if (size.phone) assert.doesNotMatch(hint, /Enter|Esc/, 'no keyboard hints on a touch screen');
        else assert.match(hint, /Enter/);
        const focused = size.phone ? 'approve-hold' : 'approve-type';
        await waitFor(async () => (await page.evaluate(() => document.activeElement?.dataset.testid)) === focused, `the focus on ${focused}`);
        await page.keyboard.press('Enter');
        if (!size.phone) await step.locator('[data-testid="approve-type-mismatch"]').waitFor();
        else assert.equal(await step.locator('[data-testid="approve-hold"]').getAttribute('data-holding'), null, 'a quick Enter ends no hold');
        assert.equal((await state(server, spoof.id)).state, 'pending', 'a then Enter did not approve the look-alike call');
        await page.keyboard.press('Escape');
        await step.waitFor({ state: 'detached' });
        assert.equal((await state(server, spoof.id)).state, 'pending');

        // The high-risk call: a quick click on the hold button does nothing; a hold of a second approves.
        detail = await open(page, push.id);
        assert.equal(await detail.locator('[data-testid="detail-risk-chip"]').textContent(), 'High');
        step = await pressApprove(page, detail);
        assert.equal(await step.getAttribute('data-deliberate'), 'true');
        assert.match(await step.locator('[data-testid="approve-confirm-reasons"]').textContent(), /deletes|cluster|prod/);
        const hold = step.locator('[data-testid="approve-hold"]');
        await hold.click();
        assert.equal(await hold.getAttribute('data-holding'), null);
        assert.equal((await state(server, push.id)).state, 'pending', 'a quick click did not approve the high-risk call');
        if (theme === 'dark') {
          // Enter held on the button (the keyboard's repeats keep it going).
          await hold.focus();
          await page.keyboard.down('Enter');
          await waitFor(async () => (await state(server, push.id)).decision?.kind === 'approve', 'the approval by a held Enter', 5_000);
          await page.keyboard.up('Enter');
        } else {
          const box = await hold.boundingBox();
          await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          await page.mouse.down();
          await waitFor(async () => (await state(server, push.id)).decision?.kind === 'approve', 'the approval by a held pointer', 5_000);
          await page.mouse.up();
        }

        // The low-risk call: a then Enter, as before.
        detail = await open(page, plain.id);
        assert.equal(await detail.locator('[data-testid="approve"]').getAttribute('data-deliberate'), null);
        assert.equal(await detail.locator('[data-testid="detail-risk"]').count(), 0, 'no risk box for a low call');
        step = await pressApprove(page, detail);
        assert.equal(await step.getAttribute('data-deliberate'), null);
        await page.keyboard.press('Enter');
        await waitFor(async () => (await state(server, plain.id)).decision?.kind === 'approve', 'the low call approved by a then Enter');
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });
  }
}
