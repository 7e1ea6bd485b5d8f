// A decided call's signed receipt in the detail view: what it shows, when, and what it copies.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, decision, makeItem } from '../testing/fake-backend';
import { makeReceipt } from '../testing/fixtures';
import { mountInBody, settle } from '../testing/mount';
import { i18n } from '../i18n/index.svelte';
import { formatDateTime } from '../time';
import Detail from './Detail.svelte';

const FP = 'sha256:' + 'ab'.repeat(32);

function decided(receipt: string | null, kind: 'approve' | 'decline' = 'approve'): QueueItem {
  return makeItem({ state: 'delivered', allowed: [], decision: { ...decision(kind, FP, null, null), delivery: 'delivered', receipt } });
}

function render(item: QueueItem) {
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(new FakeBackend()) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, q };
}

/** A clipboard that records what is written to it, for this test only (the page's navigator is shared). */
function stubClipboard() {
  const writeText = vi.fn(async (_text: string) => {});
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  onTestFinished(() => {
    delete (navigator as { clipboard?: unknown }).clipboard;
  });
  return writeText;
}

describe('Detail: signed receipt', () => {
  it("shows a decided call's receipt: its id, key id, who approved and until when", () => {
    const receipt = makeReceipt({ approvers: ['local:alice', 'token:bob'] });
    const { q } = render(decided(receipt));
    const section = q('decision-receipt')!;
    expect(section).not.toBeNull();
    expect(q('decision-result')!.contains(section)).toBe(true);
    expect(section.querySelector('h4')!.textContent).toBe('Signed receipt');
    expect(section.getAttribute('aria-labelledby')).toBe(section.querySelector('h4')!.id);
    expect(q('receipt-id')!.textContent).toBe('rct_4be0c1d2e3f4a5b6c7d8e9f0a1b2c3d4');
    expect(q('receipt-kid')!.textContent).toBe('ed25519-3f4b19a00c1d8e72');
    expect(q('receipt-approvers')!.textContent!.trim()).toBe('local:alice, token:bob');
    const labels = [...section.querySelectorAll('dt')].map((dt) => dt.textContent);
    expect(labels).toEqual(['Receipt ID', 'Key ID', 'Approved by', 'Valid until']);
    const expires = q('receipt-expires')!;
    expect(expires.getAttribute('datetime')).toBe('2025-12-05T16:00:00.000Z');
    expect(expires.textContent).toBe(formatDateTime('2025-12-05T16:00:00.000Z'));
    expect(q('receipt-copy')!.textContent).toBe('Copy receipt');
  });

  it('is absent without a receipt (a decision stored before receipts) and before a decision', () => {
    const old = render(decided(null));
    expect(old.q('decision-result')).not.toBeNull();
    expect(old.q('decision-receipt')).toBeNull();
    expect(old.q('receipt-copy')).toBeNull();
    const pending = render(makeItem());
    expect(pending.q('decision-receipt')).toBeNull();
  });

  it('copies the exact receipt text', async () => {
    const writeText = stubClipboard();
    const receipt = makeReceipt();
    const { q } = render(decided(receipt));
    q('receipt-copy')!.click();
    await settle({ rounds: 3, macrotasks: false });
    expect(writeText).toHaveBeenCalledTimes(1);
    expect(writeText).toHaveBeenCalledWith(receipt);
    expect(q('decision-receipt')!.textContent).toContain('Copied');
  });

  it('offers only to copy a receipt that does not read, and copies it as it came', async () => {
    const writeText = stubClipboard();
    const junk = 'not-a.jws';
    const { q } = render(decided(junk));
    expect(q('decision-receipt')).not.toBeNull();
    expect(q('decision-receipt')!.querySelector('dl')).toBeNull();
    expect(q('receipt-id')).toBeNull();
    q('receipt-copy')!.click();
    await settle({ rounds: 3, macrotasks: false });
    expect(writeText).toHaveBeenCalledWith(junk);
  });

  it("names the receipt's deciders by its decision, and shows their names as text", () => {
    const receipt = makeReceipt({ decision: 'declined', approvers: ['<b>mallory</b>'], executedFingerprint: undefined });
    const { q } = render(decided(receipt, 'decline'));
    const labels = [...q('decision-receipt')!.querySelectorAll('dt')].map((dt) => dt.textContent);
    expect(labels).toContain('Declined by');
    expect(q('receipt-approvers')!.textContent!.trim()).toBe('<b>mallory</b>');
    expect(q('receipt-approvers')!.querySelector('b')).toBeNull();
  });

  it('speaks Japanese', () => {
    i18n.set('ja');
    flushSync();
    const { q } = render(decided(makeReceipt()));
    const section = q('decision-receipt')!;
    expect(section.querySelector('h4')!.textContent).toBe('署名付きレシート');
    expect([...section.querySelectorAll('dt')].map((dt) => dt.textContent)).toEqual(['レシート ID', '鍵 ID', '承認した人', '有効期限']);
    expect(q('receipt-copy')!.textContent).toBe('レシートをコピー');
  });
});
