import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import DecisionResult from './DecisionResult.svelte';
import Detail from './Detail.svelte';
import SettingsView from './SettingsView.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

function renderDetail(item: QueueItem, backend: FakeBackend, warnBeforeSecs = 300) {
  const onupdated = vi.fn();
  const { target } = mountInBody(Detail, {
    props: { item, ondecided: vi.fn(), onerror: vi.fn(), onupdated, warnBeforeSecs },
    context: backendContext(backend),
  });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, q, onupdated };
}

describe('expiry in the detail', () => {
  it('counts down to the deadline, as a warning inside the warn window', () => {
    const { q } = renderDetail(makeItem({ expiresAt: inMinutes(3.5) }), new FakeBackend());
    expect(text(q('detail-countdown'))).toBe('⏳ expires in 4 min');
    expect(q('detail-countdown')!.dataset.warn).toBe('true');
  });

  it('reads as one sentence, the time limit then its countdown (never "Expires expires in")', () => {
    const { q } = renderDetail(makeItem({ expiresAt: inMinutes(20) }), new FakeBackend(), 300);
    expect(text(q('detail-expiry'))).toMatch(/^Time limit expires in 20 min \(/);
    expect(text(q('detail-expiry'))).not.toMatch(/expires expires/i);
  });

  it('shows a countdown outside the warn window without the warning', () => {
    const { q } = renderDetail(makeItem({ expiresAt: inMinutes(20) }), new FakeBackend(), 300);
    expect(text(q('detail-countdown'))).toBe('expires in 20 min');
    expect(q('detail-countdown')!.dataset.warn).toBe('false');
  });

  it('updates the countdown as time passes', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'Date'] });
    try {
      const { q } = renderDetail(makeItem({ expiresAt: inMinutes(10) }), new FakeBackend());
      expect(text(q('detail-countdown'))).toBe('expires in 10 min');
      vi.advanceTimersByTime(6 * 60_000);
      flushSync();
      expect(text(q('detail-countdown'))).toBe('⏳ expires in 4 min');
    } finally {
      vi.useRealTimers();
    }
  });

  it('has no countdown or snooze without a time limit', () => {
    const { q } = renderDetail(makeItem({ expiresAt: null }), new FakeBackend());
    expect(q('detail-expiry')).toBeNull();
    expect(q('snooze')).toBeNull();
  });

  it('snoozes by the step past the current deadline, and shows the new deadline', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ expiresAt: inMinutes(4) });
    backend.add(item);
    const { target, q, onupdated } = renderDetail(item, backend);
    const buttons = [...target.querySelectorAll<HTMLButtonElement>('[data-testid="snooze"]')];
    expect(buttons.map((b) => b.textContent)).toEqual(['+15 min', '+1 h', '+1 day']);
    buttons[1].click();
    await settle();
    const [id, secs] = backend.calls.find((c) => c.method === 'snooze')!.args as [string, number];
    expect(id).toBe(item.id);
    // What is left (4 min) plus one hour, in seconds from now.
    expect(Math.abs(secs - (240 + 3600))).toBeLessThanOrEqual(2);
    const updated = onupdated.mock.calls[0][0] as QueueItem;
    expect(Date.parse(updated.expiresAt!)).toBeGreaterThan(Date.parse(item.expiresAt!));
    expect(text(q('snooze-result'))).toContain('Deadline moved to');
    expect(q('snooze-result')!.querySelector('time')!.getAttribute('datetime')).toBe(updated.expiresAt);
  });

  it('shows a refused snooze where it happened', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ expiresAt: inMinutes(4) });
    backend.add({ ...item, expiresAt: null }); // the server no longer has a limit for it
    const { q } = renderDetail(item, backend);
    q('snooze')!.click();
    await settle();
    expect(q('snooze-error')!.dataset.code).toBe('invalid_request');
    expect(text(q('snooze-error-message'))).toBe('no time limit applies to this call');
  });
});

describe('an expired call', () => {
  it('says it expired, not that it was declined', () => {
    const item = makeItem({
      state: 'delivered',
      allowed: [],
      decision: {
        kind: 'decline', reason: 'expired: nobody decided within 1 h', data: null, fingerprint: 'sha256:aa', operator: 'expiry',
        decidedAt: '2025-01-01T11:00:00Z', delivery: 'delivered', outcome: null, attempts: 1, lastError: null, nextAttemptAt: null, expiredAfterSecs: 3600, editedFingerprint: null, receipt: null,
      },
    });
    const { target } = mountInBody(DecisionResult, { props: { item } });
    flushSync();
    const kind = target.querySelector('[data-testid="decision-kind"]');
    expect(text(kind)).toBe('Expired after 1 h — nobody decided');
    expect(text(kind)).not.toContain('Declined');
    expect((target.querySelector('[data-testid="decision-result"]') as HTMLElement).dataset.expired).toBe('true');
  });
});

describe('Settings → Time limits', () => {
  // Saved with the rest of the settings, by the view's one Save.
  async function render(backend: FakeBackend) {
    const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
    await settle();
    const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
    const all = (id: string) => [...target.querySelectorAll<HTMLInputElement>(`[data-testid="${id}"]`)];
    return { target, q, all };
  }

  it('shows the stored rules in units, edits and saves them as seconds', async () => {
    const backend = new FakeBackend();
    backend.expiry = { rules: [{ tool: 'delete_record', afterSecs: 3600 }], warnBeforeSecs: 300 };
    const { q, all } = await render(backend);
    expect(all('expiry-rule-tool').map((i) => i.value)).toEqual(['delete_record']);
    expect(all('expiry-rule-amount').map((i) => i.value)).toEqual(['1']);
    expect((all('expiry-rule-unit')[0] as unknown as HTMLSelectElement).value).toBe('hours');
    expect((q('expiry-warn-amount') as HTMLInputElement).value).toBe('5');

    q('expiry-add-rule')!.click();
    await settle();
    type(all('expiry-rule-tool')[1], '*');
    type(all('expiry-rule-amount')[1], '2');
    const unit = all('expiry-rule-unit')[1] as unknown as HTMLSelectElement;
    unit.value = 'days';
    unit.dispatchEvent(new Event('change', { bubbles: true }));
    type(all('expiry-rule-amount')[0], '30');
    const unit0 = all('expiry-rule-unit')[0] as unknown as HTMLSelectElement;
    unit0.value = 'minutes';
    unit0.dispatchEvent(new Event('change', { bubbles: true }));
    q('settings-save')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'saveExpirySettings').map((c) => c.args[0])).toEqual([
      { rules: [{ tool: 'delete_record', afterSecs: 1800 }, { tool: '*', afterSecs: 172_800 }], warnBeforeSecs: 300 },
    ]);
    expect(backend.expiry.rules).toEqual([{ tool: 'delete_record', afterSecs: 1800 }, { tool: '*', afterSecs: 172_800 }]);
    expect(text(q('settings-saved'))).toBe('Saved. Notifications and high-risk tools apply to the next new call. Time limits: delete_record after 30 min, * after 2 days.');
  });

  it("shows the server's refusal inline and marks the rule it names", async () => {
    const backend = new FakeBackend();
    backend.expiry = { rules: [{ tool: 'delete_record', afterSecs: 3600 }], warnBeforeSecs: 300 };
    const { q, all, target } = await render(backend);
    type(all('expiry-rule-amount')[0], '0');
    q('settings-save')!.click();
    await settle();
    expect(q('expiry-save-error')!.dataset.code).toBe('invalid_request');
    expect(text(q('expiry-save-error-message'))).toBe('delete_record: afterSecs must be 1 to 2592000 (30 days), not 0');
    expect(all('expiry-rule-amount')[0].getAttribute('aria-invalid')).toBe('true');
    expect(q('expiry-fields')!.getAttribute('aria-describedby')).toBe(q('expiry-save-error')!.id);
    expect(text(q('settings-not-saved'))).toBe('Not everything was saved: see the errors above.');
    expect(q('settings-saved')).toBeNull();
    expect(backend.expiry.rules).toEqual([{ tool: 'delete_record', afterSecs: 3600 }]);
    // Removing the rule and saving clears it.
    q('expiry-rule-remove')!.click();
    q('settings-save')!.click();
    await settle();
    expect(q('expiry-save-error')).toBeNull();
    expect(backend.expiry.rules).toEqual([]);
    expect(target.querySelector('[data-testid="expiry-none"]')).not.toBeNull();
  });
});
