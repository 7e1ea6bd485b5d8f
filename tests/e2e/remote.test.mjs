// The remote listener (serve --listen, issue 28) from a phone: a phone-sized chromium reaches the
// console over TLS at its public name (mapped to 127.0.0.2, the certificate pinned by its SPKI hash
// as the pairing printed it), pairs with the code from the link, registers a passkey in Chrome's
// virtual authenticator (DevTools protocol), sees a call, approves it with the passkey, and the tool
// runs. The phone is offered only what a device may do (the queue, deciding, the audit log, its
// appearance: no claim, snooze, grant, figures, engines or the console's settings), and no view it
// opens asks for anything the server refuses it. Then the refusals: a decision with no assertion,
// with another call's assertion, with a used one, and from a revoked device — each refused and audited.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, row, startServer, waitFor } from './helpers.mjs';

const NAME = 'console.example.com';
const ctx = { server: undefined, browser: undefined };

before(async () => {
  ctx.server = await startServer({ args: ['--listen', '127.0.0.2:0', '--public-name', NAME] });
  assert.ok(ctx.server.remote, 'serve printed its remote listener');
  ctx.browser = await launchBrowser([
    `--host-resolver-rules=MAP ${NAME} 127.0.0.2`,
    // The phone pins the certificate the pairing showed: only that key is trusted for this name.
    `--ignore-certificate-errors-spki-list=${ctx.server.remote.pin}`,
  ]);
});
after(async () => {
  await ctx.browser?.close();
  await ctx.server?.stop();
});

/** A phone: 390×844, touch, with a platform authenticator that verifies its user. */
async function phone() {
  const opened = await newPage(ctx.browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const cdp = await opened.page.context().newCDPSession(opened.page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { ...opened, cdp, authenticatorId };
}

/** `fetch` from the phone's page (same origin: its session cookie goes with it). */
function inPage(page, fn, arg) {
  return page.evaluate(fn, arg);
}

const audit = async (action) =>
  (await ctx.server.api('GET', '/api/audit?limit=500')).body.entries.filter((e) => e.action === action);

test('a phone pairs over TLS with a passkey, approves with it, and the tool runs', async () => {
  const { page, problems, close, cdp, authenticatorId } = await phone();
  try {
    const started = await ctx.server.api('POST', '/api/devices/pairings', { name: 'alice-phone', person: 'alice' });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.ok(started.body.url.startsWith(`https://${NAME}:`));
    assert.equal(started.body.pin, ctx.server.remote.pin, 'the pairing shows the pin the listener serves');

    await page.goto(started.body.url);
    const screen = page.locator('[data-testid="remote-screen"]');
    await screen.waitFor();
    assert.equal(await page.evaluate(() => location.hash), '', 'the code left the address bar');
    assert.equal(await page.locator('[data-testid="pair-code"]').inputValue(), started.body.code);
    assert.equal(await page.locator('[data-testid="pair-pin"]').textContent(), ctx.server.remote.pin, 'the pin to compare with the console');
    // Before pairing, the page's question "who am I?" is answered 401 (no session yet): the one
    // error chromium logs; nothing may fail after it.
    assert.ok(problems.every((p) => p.includes('status of 401')), problems.join('\n'));
    const before = problems.length;
    await page.locator('[data-testid="pair"]').tap();
    await page.locator('[data-testid="pending-count"]').waitFor({ timeout: 15_000 });
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1, 'one passkey registered on the phone');
    // No token in the page: the session is an HttpOnly cookie the page cannot read.
    assert.equal(await page.evaluate(() => document.cookie), '');
    assert.equal(await page.evaluate(() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage)), '{}{}');
    const devices = (await ctx.server.api('GET', '/api/devices')).body;
    assert.deepEqual(devices.map((d) => [d.name, d.person]), [['alice-phone', 'alice']]);

    const gen = await ctx.server.generate('delete rec-9');
    const item = await ctx.server.waitForItem(gen);
    const r = row(page, item.id);
    await r.waitFor({ timeout: 15_000 });
    await r.tap();
    const detail = page.locator('[data-testid="detail"]');
    await detail.waitFor();
    // What a device is refused is not offered: no "I'm on it", no snooze, no "always allow"; no
    // Statistics, Grants or Engines.
    const tabs = await page.locator('header [role="tab"]').evaluateAll((els) => els.map((e) => e.dataset.testid));
    assert.deepEqual(tabs, ['queue-tab', 'audit-tab', 'settings-tab']);
    for (const id of ['claim', 'snooze', 'grant-open']) assert.equal(await detail.locator(`[data-testid="${id}"]`).count(), 0, id);
    await detail.locator('[data-testid="approve"]').tap();
    await detail.locator('[data-testid="approve-confirm"]').tap();
    await page.locator('[data-testid="decision-result"]').waitFor({ timeout: 15_000 });
    const done = await waitFor(async () => {
      const now = (await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
      return now.state === 'delivered' ? now : null;
    }, 'the approved call to be delivered (the tool ran)');
    assert.equal(done.decision.kind, 'approve');
    assert.match(done.decision.operator, /alice-phone \(remote\)/);
    // The views a phone has read only what a device is admitted to: the audit log and its decisions,
    // and its appearance without the console's settings (from the list's screen, where the views are).
    await page.locator('[data-testid="back-to-list"]').tap();
    await page.locator('[data-testid="audit-tab"]').tap();
    await page.locator('[data-testid="verify-result"][data-ok="true"]').waitFor();
    await page.locator('[data-testid="history-operator"]').first().waitFor();
    assert.equal(await page.locator('[data-testid="export-csv"]').count(), 0, 'no export');
    await page.locator('[data-testid="settings-tab"]').tap();
    await page.locator('[data-testid="settings-device-only"]').waitFor();
    assert.equal(await page.locator('[data-testid="settings-form"]').count(), 0, "none of the console's settings");
    await page.locator('[data-testid="queue-tab"]').tap();
    assert.deepEqual(problems.slice(before), []);
  } finally {
    await close();
  }
});

test('a paired phone signs in again with its passkey alone: the sign-in options name no device and no credential', async () => {
  const { page, close, cdp, authenticatorId } = await phone();
  try {
    const started = await ctx.server.api('POST', '/api/devices/pairings', { name: 'dave-phone', person: 'dave' });
    await page.goto(started.body.url);
    await page.locator('[data-testid="pair"]').tap();
    await page.locator('[data-testid="pending-count"]').waitFor({ timeout: 15_000 });
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0].isResidentCredential, true, 'pairing made a discoverable passkey');

    // Signed out, the page asks for the passkey with no credential named.
    const out = await inPage(page, async () => (await fetch('/api/remote/sign-out', { method: 'POST' })).status);
    assert.equal(out, 204);
    await page.goto(ctx.server.remote.origin + '/');
    const signIn = page.locator('[data-testid="remote-screen"] [data-testid="sign-in"]');
    await signIn.waitFor();
    const [options] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/remote/sign-in')).then((r) => r.json()),
      signIn.tap(),
    ]);
    assert.deepEqual(options.options.publicKey.allowCredentials ?? [], [], 'no credential listed (the passkey is discoverable)');
    assert.ok(!JSON.stringify(options).includes(credentials[0].credentialId.replace(/=+$/, '')), 'no credential id');
    assert.ok(!JSON.stringify(options).includes('dave'), 'no device, no person');
    await page.locator('[data-testid="pending-count"]').waitFor({ timeout: 15_000 });
    assert.ok((await audit('device.signed_in')).some((e) => e.details.name === 'dave-phone'), 'the sign-in is audited');
  } finally {
    await close();
  }
});

test("a decision without its passkey, with another call's, with a used one, or from a revoked device is refused and audited", async () => {
  const { page, close } = await phone();
  try {
    const started = await ctx.server.api('POST', '/api/devices/pairings', { name: 'bob-phone', person: 'bob' });
    await page.goto(started.body.url);
    await page.locator('[data-testid="pair"]').tap();
    await page.locator('[data-testid="pending-count"]').waitFor({ timeout: 15_000 });

    const a = await ctx.server.waitForItem(await ctx.server.generate('delete rec-a'));
    const b = await ctx.server.waitForItem(await ctx.server.generate('delete rec-b'));
    const results = await inPage(
      page,
      async ({ a, b }) => {
        const b64u = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
        const unb64u = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
        const post = async (path, body, headers = {}) => {
          const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
          return { status: r.status, body: await r.json().catch(() => null) };
        };
        // A step-up for call A, answered by the passkey.
        async function assertionFor(item) {
          const begun = await post('/api/remote/step-up', { itemId: item.id, fingerprint: item.fingerprint, decision: 'approve' });
          const o = begun.body.options.publicKey;
          const cred = await navigator.credentials.get({
            publicKey: { ...o, challenge: unb64u(o.challenge), allowCredentials: o.allowCredentials.map((c) => ({ ...c, id: unb64u(c.id) })) },
          });
          const json = {
            id: cred.id,
            rawId: b64u(cred.rawId),
            type: cred.type,
            response: {
              clientDataJSON: b64u(cred.response.clientDataJSON),
              authenticatorData: b64u(cred.response.authenticatorData),
              signature: b64u(cred.response.signature),
              userHandle: cred.response.userHandle ? b64u(cred.response.userHandle) : undefined,
            },
            extensions: {},
          };
          return { 'X-Step-Up': begun.body.ceremony, 'X-Step-Up-Assertion': b64u(new TextEncoder().encode(JSON.stringify(json))) };
        }
        const approve = (item, headers) => post(`/api/queue/${item.id}/approve`, { fingerprint: item.fingerprint }, headers);
        const none = await approve(b, {});
        const forA = await assertionFor(a);
        const otherCall = await approve(b, forA);
        const forA2 = await assertionFor(a);
        const declineWithApproval = await post(`/api/queue/${a.id}/decline`, { fingerprint: a.fingerprint }, forA2);
        const forA3 = await assertionFor(a);
        const ok = await approve(a, forA3);
        const replay = await approve(a, forA3);
        return { none, otherCall, declineWithApproval, ok: ok.status, replay };
      },
      { a, b },
    );
    assert.equal(results.none.status, 403);
    assert.equal(results.none.body.code, 'step_up_required');
    assert.equal(results.otherCall.status, 403, "call A's assertion does not approve call B");
    assert.equal(results.otherCall.body.code, 'step_up_required');
    assert.equal(results.declineWithApproval.body.code, 'step_up_required', 'an approval\'s assertion does not decline');
    assert.equal(results.ok, 200, 'the assertion asked for this call and this decision approves it');
    assert.equal(results.replay.status, 403, 'a used assertion is spent');
    assert.equal(results.replay.body.code, 'step_up_required');
    assert.equal((await ctx.server.api('GET', `/api/queue/${encodeURIComponent(b.id)}`)).body.state, 'pending');
    const reasons = (await audit('remote.refused')).map((e) => e.details.reason);
    for (const want of [
      'no passkey assertion came with the decision',
      'the step-up was asked for another call, fingerprint, decision or device',
      'the step-up is unknown, used already or expired',
    ]) {
      assert.ok(reasons.includes(want), `${want} audited: ${JSON.stringify(reasons)}`);
    }

    // Revoked on the console: the phone's session ends at once.
    const revoked = await ctx.server.api('DELETE', '/api/devices/bob-phone');
    assert.equal(revoked.status, 200);
    const after = await inPage(page, async () => (await fetch('/api/queue')).status);
    assert.equal(after, 401);
    assert.equal((await audit('device.revoked')).length, 1);
    assert.ok((await audit('remote.refused')).some((e) => e.details.reason === 'an unknown, expired or revoked session'), 'the revoked device is refused and audited');
  } finally {
    await close();
  }
});

test('a call reaches the phone through a signed webhook; its link opens the call, and the passkey approves it', async () => {
  // A webhook receiver on 127.0.0.1, as a chat bridge or a pager would run.
  const got = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.end('{}');
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const { page, problems, close } = await phone();
  try {
    // Its signing key, set by the local admin (the session token) as the channel's own secret.
    const secret = await ctx.server.api('PUT', '/api/settings/reach/channels/carol-hook/secret', { value: 'hook-key-1' });
    assert.equal(secret.status, 200, JSON.stringify(secret.body));
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    const saved = await ctx.server.api('PUT', '/api/settings/reach', {
      channels: [{ name: 'carol-hook', kind: 'webhook', person: 'carol', target: url }],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const started = await ctx.server.api('POST', '/api/devices/pairings', { name: 'carol-phone', person: 'carol' });
    await page.goto(started.body.url);
    await page.locator('[data-testid="pair"]').tap();
    await page.locator('[data-testid="pending-count"]').waitFor({ timeout: 15_000 });
    // Before pairing, "who am I?" is answered 401: nothing may fail after it.
    const before = problems.length;

    const item = await ctx.server.waitForItem(await ctx.server.generate('delete rec-77'));
    const message = await waitFor(() => got.map((g) => ({ ...g, json: JSON.parse(g.body) })).find((g) => g.json.id === item.id), 'the webhook');
    const mac = createHmac('sha256', 'hook-key-1').update(`${message.headers['x-approval-console-timestamp']}.${message.body}`).digest('hex');
    assert.equal(message.headers['x-approval-console-signature'], `sha256=${mac}`);
    assert.equal(message.json.link, `${ctx.server.remote.origin}/#call=${item.id}`);

    await page.goto(message.json.link);
    const detail = page.locator('[data-testid="detail"]');
    await detail.waitFor({ timeout: 15_000 });
    assert.equal(await detail.locator('[data-testid="fingerprint-full"]').textContent(), item.fingerprint);
    await detail.locator('[data-testid="approve"]').tap();
    await detail.locator('[data-testid="approve-confirm"]').tap();
    const done = await waitFor(async () => {
      const now = (await ctx.server.api('GET', `/api/queue/${encodeURIComponent(item.id)}`)).body;
      return now.state === 'delivered' ? now : null;
    }, 'the call approved from the link to be delivered');
    assert.match(done.decision.operator, /carol-phone \(remote\)/);
    assert.deepEqual(problems.slice(before), [], 'no request of the phone was refused');
  } finally {
    await close();
    await new Promise((r) => receiver.close(r));
  }
});
