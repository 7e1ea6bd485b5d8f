// Issue 28: the console on a phone. At 360, 390 and 430 CSS px wide (a touch screen, device pixel
// ratio 2), light and dark: the token page, the remote listener's pairing and sign-in page, the
// queue, and a call's detail with its decision controls never scroll the page sideways; the header
// stays a small part of the screen, "Signed in as …" on one line (for an admin with a long name);
// every control in view is a touch target of at least 44 × 44 px; long arguments (a very long
// string, a deep object), their raw JSON, an edit's diff and the change since the last decision
// stay readable, wrapped or inside boxes of their own. Then a call is approved by tapping, and the
// server says it was.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, row, serverBin, sideways, startServer, waitFor } from './helpers.mjs';
import { seedQueue } from './seed.mjs';

const WIDTHS = [360, 390, 430];
const HEIGHT = 800;
const SCHEMES = ['light', 'dark'];
/** WCAG 2.5.5 (target size, enhanced), and what Apple and Google ask of a touch control. */
const MIN_TARGET = 44;
/** The header may take this share of the screen's height, no more. */
const MAX_HEADER_SHARE = 0.25;

/** One word with no break opportunity: a token, a hash, a path an agent may pass. */
const LONG_WORD = 'k'.repeat(40) + '_' + '0123456789abcdef'.repeat(20);
/** An object nested this deep: each level indents the tree further. */
const DEPTH = 14;
function deep(level) {
  return level === 0 ? { leaf: `bottom-${LONG_WORD.slice(0, 60)}` } : { [`level_${level}_key`]: deep(level - 1), n: level };
}
const SEEDED = {
  toolName: 'update_configuration_of_the_production_cluster',
  args: { token: LONG_WORD, note: 'a sentence of ordinary words that wraps as any paragraph does '.repeat(6), config: deep(DEPTH) },
  agentName: 'deployment-agent-with-a-rather-long-name',
};

/** The name phones reach the remote listener by (mapped to 127.0.0.2 in the browser). */
const PUBLIC_NAME = 'console.example.com';
/** An admin whose name (64 characters at most) is long enough to wrap a narrow header. */
const ADMIN = 'night-shift-admin-on-call-for-the-eu-production-clusters';

let server;
let browser;
let dataDir;
let adminToken;
let seeded;
/** A call whose detail shows what changed since the last decision on its tool (two long strings). */
let changed;
/** The link a pairing gives a phone (`https://…/#pair=CODE`). */
let pairingUrl;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'approval-console-e2e-phone-'));
  [seeded] = await seedQueue(dataDir, [SEEDED]);
  const made = execFileSync(serverBin, ['--data-dir', dataDir, 'tokens', 'add', ADMIN, '--role', 'admin'], { encoding: 'utf8' });
  adminToken = made.trim().split('\n').at(-1);
  server = await startServer({ dataDir, args: ['--listen', '127.0.0.2:0', '--public-name', PUBLIC_NAME] });
  assert.ok(server.remote, 'serve printed its remote listener');
  browser = await launchBrowser([`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.2`, `--ignore-certificate-errors-spki-list=${server.remote.pin}`]);
  const pairing = await server.api('POST', '/api/devices/pairings', { name: 'phone', person: 'alice' });
  assert.equal(pairing.status, 201, JSON.stringify(pairing.body));
  pairingUrl = pairing.body.url;
  const inThread = async (content) => {
    const r = await server.api('POST', '/api/agents/demo/generate', { messages: [{ role: 'user', content }], memory: { thread: 'th-phone', resource: 'ops' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return server.waitForItem(r.body);
  };
  const first = await inThread(`delete before-${LONG_WORD}`);
  const declined = await server.api('POST', `/api/queue/${encodeURIComponent(first.id)}/decline`, { fingerprint: first.fingerprint, reason: 'wrong record' });
  assert.equal(declined.status, 200, JSON.stringify(declined.body));
  changed = await inThread(`delete after-${LONG_WORD}`);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A phone-shaped page: touch, a mobile viewport, device pixel ratio 2, in `scheme`. */
function phone(width, scheme) {
  return newPage(browser, { viewport: { width, height: HEIGHT }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, colorScheme: scheme });
}

/**
 * What is measured in the page: whether it scrolls sideways (and what sticks out), and the
 * controls under `roots` smaller than a touch target. A checkbox or radio counts with the label
 * around it (a tap on the label is a tap on it).
 */
async function measure(page, width, roots) {
  const targets = await page.evaluate(
    ({ roots, min }) => {
      const describe = (el) => {
        const id = el.getAttribute('data-testid') ?? el.id;
        const text = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 30);
        return `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}${text ? ` "${text}"` : ''}`;
      };
      const visible = (el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        const s = getComputedStyle(el);
        if (s.visibility === 'hidden' || s.display === 'none') return false;
        return !el.closest('.visually-hidden');
      };
      const selector = 'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="tab"], [role="option"]';
      const small = [];
      let smallest = Infinity;
      for (const root of roots) {
        for (const scope of document.querySelectorAll(root)) {
          for (const el of scope.querySelectorAll(selector)) {
            if (!visible(el)) continue;
            let r = el.getBoundingClientRect();
            if ((el.type === 'checkbox' || el.type === 'radio') && el.closest('label')) r = el.closest('label').getBoundingClientRect();
            const size = Math.min(r.width, r.height);
            smallest = Math.min(smallest, size);
            if (r.width < min - 0.5 || r.height < min - 0.5) small.push(`${describe(el)} ${Math.round(r.width)}×${Math.round(r.height)}`);
          }
        }
      }
      const header = document.querySelector('header.top');
      return {
        innerWidth: window.innerWidth,
        small: [...new Set(small)],
        smallest: Number.isFinite(smallest) ? Math.round(smallest) : null,
        headerHeight: header ? Math.round(header.getBoundingClientRect().height) : null,
      };
    },
    { roots, min: MIN_TARGET },
  );
  // Whether it scrolls sideways, and what sticks out.
  return { ...targets, ...(await sideways(page, width)) };
}

/** "Signed in as …": its box, against the height of one line of its text. */
function whoLines(page) {
  return page.locator('[data-testid="session"]').evaluate((el) => {
    const s = getComputedStyle(el);
    const line = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.45;
    return { height: el.getBoundingClientRect().height, line };
  });
}

/**
 * Each element of `selector` under the detail shows its text within the window: it wraps, or it
 * scrolls inside a box of its own that fits the window (never clipped out of reach).
 */
function unreadable(page, width, selector) {
  return page.evaluate(({ selector, vw }) => {
    const out = [];
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left >= -0.5 && r.right <= vw + 0.5) continue;
      // Past the edge: fine only inside a box that scrolls sideways and fits the window.
      let scroller = null;
      for (let a = el.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'auto' || s.overflowX === 'scroll') {
          scroller = a;
          break;
        }
        if (s.overflowX === 'hidden' || s.overflowX === 'clip') break;
      }
      const sr = scroller?.getBoundingClientRect();
      if (scroller && scroller !== document.documentElement && sr.left >= -0.5 && sr.right <= vw + 0.5) continue;
      out.push(`${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') ?? ''}] ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return out;
  }, { selector, vw: width });
}

/** What a view got wrong, as lines for one failure message (so one run shows every offender). */
function faultsOf(where, width, m, { header = false } = {}) {
  const faults = [];
  // A page wider than the phone makes a mobile browser zoom out (the window grows to fit it).
  if (m.innerWidth !== width || m.scrollWidth > width) {
    faults.push(`${where}: the page is ${m.scrollWidth} px wide (window ${m.innerWidth} px) on a ${width} px phone; sticking out: ${m.sticking.join('; ') || '(none found)'}`);
  }
  if (header && m.headerHeight > HEIGHT * MAX_HEADER_SHARE) faults.push(`${where}: the header is ${m.headerHeight} px tall (at most ${HEIGHT * MAX_HEADER_SHARE})`);
  if (m.small.length > 0) faults.push(`${where}: controls under ${MIN_TARGET}×${MIN_TARGET} px: ${m.small.join('; ')}`);
  return faults;
}

/** Opens the console as the long-named admin and waits until the list loaded and the stream is live. */
async function openAsAdmin(page) {
  await page.goto(`${server.base}/#token=${adminToken}`);
  await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="pending-count"]').waitFor();
}

/** Taps every folded part of the arguments open (nested objects, long strings) until none is left. */
async function unfoldAll(tree) {
  const folded = tree.locator('button[aria-expanded="false"]');
  for (let i = 0; i < 100 && (await folded.count()) > 0; i++) await folded.first().tap();
  assert.equal(await folded.count(), 0, 'every part of the arguments is open');
}

/** The controls measured: the header, the list and the detail with its decision controls. */
const CONSOLE = ['header.top', '#panel-queue'];

for (const width of WIDTHS) {
  for (const scheme of SCHEMES) {
    test(`at ${width} px, ${scheme}: the token and pairing pages, the queue and a call's detail fit the phone`, async (t) => {
      const { page, problems, close } = await phone(width, scheme);
      const faults = [];
      try {
        // Without a token: the page that asks for one.
        await page.goto(server.base + '/');
        await page.locator('[data-testid="token-screen"]').waitFor();
        const token = await measure(page, width, ['[data-testid="token-screen"]']);
        t.diagnostic(`token page: scrollWidth ${token.scrollWidth}, smallest target ${token.smallest}`);
        faults.push(...faultsOf('token page', width, token));

        // The remote listener's pages: pairing from the link's code, and signing in with a passkey.
        await page.goto(pairingUrl);
        await page.locator('[data-testid="remote-screen"] [data-testid="pair"]').waitFor();
        const pairingPage = await measure(page, width, ['[data-testid="remote-screen"]']);
        t.diagnostic(`pairing page: scrollWidth ${pairingPage.scrollWidth}, smallest target ${pairingPage.smallest}`);
        faults.push(...faultsOf('pairing page', width, pairingPage));
        await page.goto(`${server.remote.origin}/`);
        await page.locator('[data-testid="remote-screen"] [data-testid="sign-in"]').waitFor();
        faults.push(...faultsOf('sign-in page', width, await measure(page, width, ['[data-testid="remote-screen"]'])));
        // Without a session, the listener answers "who am I?" 401: the one error chromium logs there.
        assert.ok(problems.every((p) => p.includes('status of 401')), problems.join('\n'));
        problems.length = 0;

        await openAsAdmin(page);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), scheme);
        await row(page, changed.id).waitFor();
        const queue = await measure(page, width, CONSOLE);
        const who = await whoLines(page);
        t.diagnostic(`queue: header ${queue.headerHeight} px, scrollWidth ${queue.scrollWidth}, smallest target ${queue.smallest}, "signed in as" ${Math.round(who.height)} px (line ${Math.round(who.line)})`);
        faults.push(...faultsOf('queue', width, queue, { header: true }));
        if (who.height > who.line * 1.5) faults.push(`"Signed in as …" takes more than one line: ${Math.round(who.height)} px for a ${Math.round(who.line)} px line`);
        // The queue's filters, unfolded.
        await page.locator('[data-testid="filters-toggle"]').tap();
        await page.locator('[data-testid="queue-filters"]').waitFor();
        faults.push(...faultsOf('queue with its filters open', width, await measure(page, width, CONSOLE)));
        await page.locator('[data-testid="filters-toggle"]').tap();

        // The call with long and deep arguments, opened by a tap, every part of them unfolded.
        await row(page, seeded).tap();
        const detail = page.locator(`[data-testid="detail"][data-id="${seeded}"]`);
        await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
        const tree = detail.locator('[data-testid="args-tree"]');
        await unfoldAll(tree);
        assert.match(await tree.textContent(), /leaf: "bottom-k+/);
        assert.ok((await tree.textContent()).includes(LONG_WORD), 'the long string is shown whole');
        const approve = detail.locator('[data-testid="approve"]');
        await approve.scrollIntoViewIfNeeded();
        assert.ok(await approve.isVisible(), 'the decision controls are shown');
        const args = await measure(page, width, CONSOLE);
        t.diagnostic(`detail (long arguments): scrollWidth ${args.scrollWidth}, smallest target ${args.smallest}`);
        faults.push(...faultsOf('detail with long arguments', width, args));
        for (const f of await unreadable(page, width, '[data-testid="detail"] [data-testid="args-tree"] *, [data-testid="detail"] [data-testid="fingerprint-full"]')) {
          faults.push(`detail with long arguments: out of reach (neither wrapped nor in a box of its own that scrolls): ${f}`);
        }
        // The confirm step of Approve.
        await approve.tap();
        await detail.locator('[data-testid="approve-confirm"]').waitFor();
        faults.push(...faultsOf('the confirm step of Approve', width, await measure(page, width, CONSOLE)));
        await detail.locator('[data-testid="approve-cancel"]').tap();
        // The argument editor, with a change: the diff of a long line.
        await detail.locator('[data-testid="edit-args-open"]').tap();
        await detail.locator('[data-testid="edit-text"]').fill(JSON.stringify({ ...SEEDED.args, token: `changed-${LONG_WORD}` }, null, 2));
        faults.push(...faultsOf('the argument editor', width, await measure(page, width, CONSOLE)));
        await detail.locator('[data-testid="approve-edited"]').tap();
        await detail.locator('[data-testid="edit-diff-view"] [data-kind="added"]').first().waitFor();
        faults.push(...faultsOf('the confirm step of the edited arguments, with their diff', width, await measure(page, width, CONSOLE)));
        for (const f of await unreadable(page, width, '[data-testid="edit-args"] *')) faults.push(`the argument editor: out of reach: ${f}`);
        await detail.locator('[data-testid="edit-args"] [data-testid="approve-cancel"]').tap();
        await detail.locator('[data-testid="edit-cancel"]').tap();
        // "Approve and always allow": the grant's form.
        await detail.locator('[data-testid="grant-open"]').tap();
        await detail.locator('[data-testid="grant-form"]').waitFor();
        faults.push(...faultsOf('the grant form', width, await measure(page, width, CONSOLE)));
        await detail.locator('[data-testid="grant-cancel"]').tap();
        // The same arguments as raw JSON.
        await detail.locator('[data-testid="raw-toggle"]').tap();
        faults.push(...faultsOf('detail with raw JSON', width, await measure(page, width, CONSOLE)));
        for (const f of await unreadable(page, width, '[data-testid="detail"] [data-testid="args-raw"] *')) faults.push(`raw JSON: out of reach: ${f}`);

        // A call with a change since the last decision: before and after, both long (the list is a
        // screen of its own: back to it first).
        await page.locator('[data-testid="back-to-list"]').tap();
        await row(page, changed.id).tap();
        const since = page.locator(`[data-testid="detail"][data-id="${changed.id}"] [data-testid="since-last"]`);
        await since.waitFor();
        await since.scrollIntoViewIfNeeded();
        const diff = await measure(page, width, CONSOLE);
        t.diagnostic(`detail (change since the last decision): scrollWidth ${diff.scrollWidth}, smallest target ${diff.smallest}`);
        faults.push(...faultsOf('detail with a change since the last decision', width, diff));
        for (const f of await unreadable(page, width, '[data-testid="since-last"] *')) faults.push(`change since the last decision: out of reach: ${f}`);

        assert.ok(faults.length === 0, `at ${width} px, ${scheme}:\n  ${faults.join('\n  ')}`);
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });
  }
}

test('at 390 px a call is approved by tapping', async () => {
  const item = await server.waitForItem(await server.generate('delete rec-phone'));
  const { page, problems, close } = await phone(390, 'light');
  try {
    await openAsAdmin(page);
    await row(page, item.id).tap();
    const detail = page.locator(`[data-testid="detail"][data-id="${item.id}"]`);
    await detail.locator('[data-testid="fingerprint-check"][data-status="verified"]').waitFor();
    await detail.locator('[data-testid="approve"]').tap();
    const confirm = detail.locator('[data-testid="approve-confirm"]');
    await confirm.waitFor();
    assert.equal((await server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body.state, 'pending', 'nothing is sent before the confirm step');
    await confirm.tap();
    await waitFor(async () => (await server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body.decision?.kind === 'approve', 'the approval to reach the server');
    // Other calls wait: the console says what was done and shows the next one.
    await waitFor(async () => /Approved delete_record/.test(await page.locator('[data-testid="triage-note"]').textContent()), 'the note that the call was approved');
    await waitFor(async () => (await row(page, item.id).count()) === 0, 'the approved call to leave the pending list');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
