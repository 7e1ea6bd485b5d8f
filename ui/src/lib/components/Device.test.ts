// What the console offers a paired device (a phone signed in with its passkey on the remote
// listener): the queue, a call's detail, deciding (each decision with its passkey, asked by the web
// backend), the audit log and the decision history, and this browser's appearance — and nothing the
// server refuses a device (src/domain/catalog.rs: no claim, snooze, grant, setting, figure, engine,
// token, device or export). The backend is guarded as the server answers a device
// (testing/device-guard.ts, from the `device` cells of operations.gen.ts): any operation it refuses
// fails the test, whatever asked for it.
import { afterEach, describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import App from '../../App.svelte';
import type { Principal } from '../backend/backend';
import { i18n } from '../i18n/index.svelte';
import { asDevice } from '../testing/device-guard';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import { memoryStorage } from '../testing/storage';
import { TokenStore } from '../token.svelte';

const PHONE: Principal = { name: 'alice-phone', role: 'operator', kind: 'device' };
const OPERATOR: Principal = { name: 'alice', role: 'operator', kind: 'token' };
const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** A call waiting for a decision, with a deadline (where snoozes would be) and a thread (its previous call is asked for). */
function queue(principal: Principal): FakeBackend {
  const fake = new FakeBackend();
  fake.principal = principal;
  fake.add(makeItem({ id: 'q1', threadId: 'th-1', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }));
  return fake;
}

/** The app as `main.ts` mounts it on the remote listener (no token: the session cookie), or with a token on 127.0.0.1. */
async function renderApp(fake: FakeBackend, { remote }: { remote: boolean }) {
  const guard = asDevice(fake);
  const auth = remote ? null : new TokenStore(memoryStorage({ 'approval-console.token': 'tok' }), { hash: '', pathname: '/', search: '' }, { state: null, replaceState: () => {} });
  const { target } = mountInBody(App, { props: { backend: guard.backend, auth, remote } });
  await settle();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const tabs = () => [...target.querySelectorAll('header [role="tab"]')].map((t) => (t as HTMLElement).dataset.testid);
  return { guard, target, q, tabs };
}

/** Opens call q1 from the list and waits for its detail's reads. */
async function open(target: HTMLElement) {
  (target.querySelector('[data-testid="queue-item"][data-id="q1"]') as HTMLElement).click();
  await settle();
  return target.querySelector('[data-testid="detail"]') as HTMLElement;
}

describe('a paired device', () => {
  afterEach(() => {
    i18n.set('system');
  });

  it('is refused by the guard what the catalog refuses a device, and let through what it admits', async () => {
    const fake = queue(PHONE);
    const { backend, refused } = asDevice(fake);
    await expect(backend.claimCall('q1')).rejects.toMatchObject({ code: 'forbidden', status: 403 });
    await expect(backend.snooze('q1', 600)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(backend.notificationSettings()).rejects.toMatchObject({ code: 'forbidden' });
    await expect(backend.exportAudit('csv')).rejects.toMatchObject({ code: 'forbidden' });
    expect((await backend.listQueue()).items.map((i) => i.id)).toEqual(['q1']);
    expect((await backend.approve('q1', fake.items.get('q1')!.fingerprint)).decision?.kind).toBe('approve');
    expect(refused).toEqual(['claim_call', 'snooze', 'notification_settings', 'export_audit']);
  });

  it('is offered the queue, a call with Approve and Decline, the audit log and its appearance, and is asked nothing the server refuses it', async () => {
    const fake = queue(PHONE);
    const { guard, target, q, tabs } = await renderApp(fake, { remote: true });
    expect(text(q('session'))).toBe('Signed in as alice-phone (a paired device)');
    expect(q('session')!.dataset.kind).toBe('device');
    expect(tabs()).toEqual(['queue-tab', 'audit-tab', 'settings-tab']);

    const detail = await open(target);
    const inDetail = (id: string) => detail.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
    expect(inDetail('approve')).not.toBeNull();
    expect(inDetail('decline')).not.toBeNull();
    expect(inDetail('detail-expiry'), 'the deadline is shown').not.toBeNull();
    for (const id of ['snooze', 'claim', 'grant-open', 'grant-form']) expect(inDetail(id), id).toBeNull();
    // Deciding stays (the web backend asks the passkey for it): with its confirm step, high risk unknown.
    inDetail('approve')!.click();
    await settle();
    inDetail('approve-confirm')!.click();
    await settle();
    expect(fake.calls.filter((c) => c.method === 'approve').map((c) => c.args[0])).toEqual(['q1']);

    // The views, by the keyboard as by a tap: Queue → Audit → Settings → Queue.
    const tablist = target.querySelector('[role="tablist"]') as HTMLElement;
    const arrow = () => tablist.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    arrow();
    await settle();
    expect(q('audit-tab')!.getAttribute('aria-selected')).toBe('true');
    expect(q('verify-audit')).not.toBeNull();
    expect(q('audit-mode-entries')).not.toBeNull();
    expect(q('export-jsonl')).toBeNull();
    expect(q('export-csv')).toBeNull();
    arrow();
    await settle();
    expect(q('settings-tab')!.getAttribute('aria-selected')).toBe('true');
    expect(q('appearance-settings')).not.toBeNull();
    expect(text(q('settings-device-only'))).toContain('not from a paired device');
    for (const id of ['settings-form', 'notify-settings', 'settings-admin-only', 'quorum-settings', 'expiry-settings', 'reach-settings', 'policy-panel', 'token-settings', 'devices-settings', 'desktop-settings']) {
      expect(q(id), id).toBeNull();
    }
    q('language-ja')!.click();
    flushSync();
    expect(i18n.language).toBe('ja');
    arrow();
    await settle();
    expect(q('queue-tab')!.getAttribute('aria-selected')).toBe('true');

    expect(q('error-banner')).toBeNull();
    expect(q('notify-warning')).toBeNull();
    expect(guard.refused).toEqual([]);
    // What was asked: the views' own reads, each admitted to a device.
    for (const op of ['session', 'queue_page', 'queue_counts', 'events', 'call_reach', 'call_reason', 'previous_call', 'approve', 'decision_history', 'verify_audit']) {
      expect(guard.asked, op).toContain(op);
    }
  });

  it('is offered none of what the same console offers an operator token on the same call, which the guard would have refused', async () => {
    const fake = queue(OPERATOR);
    const { guard, target, q, tabs } = await renderApp(fake, { remote: false });
    expect(tabs()).toEqual(['queue-tab', 'audit-tab', 'team-tab', 'grants-tab', 'engines-tab', 'settings-tab']);
    const detail = await open(target);
    expect(detail.querySelector('[data-testid="snooze"]')).not.toBeNull();
    expect(detail.querySelector('[data-testid="claim"]')).not.toBeNull();
    q('audit-tab')!.click();
    await settle();
    expect(q('export-jsonl')).not.toBeNull();
    q('settings-tab')!.click();
    await settle();
    for (const id of ['settings-form', 'notify-settings', 'settings-admin-only', 'quorum-settings', 'expiry-settings', 'reach-settings', 'policy-panel']) expect(q(id), id).not.toBeNull();
    expect(q('settings-device-only')).toBeNull();
    // An operator's console reads what a device is refused as it opens: the settings the queue uses, the notifications' state.
    expect(guard.refused).toEqual(expect.arrayContaining(['notification_status', 'notification_settings', 'expiry_settings', 'quorum_settings', 'reach_settings']));
  });
});
