// Risk you can feel (issue 45): one risk chip on one scale, "not rated" apart from low; a high or
// critical call, or one with hidden or look-alike characters, approved only by a deliberate act
// (hold, or the tool name typed), never by a quick Enter or click.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { isDeliberate } from '../deliberate';
import { HOLD_MS } from '../keys';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle as settleAll } from '../testing/mount';
import Detail from './Detail.svelte';
import RiskChip from './RiskChip.svelte';
import RiskNote from './RiskNote.svelte';

const settle = () => settleAll({ rounds: 5, macrotasks: false });

afterEach(() => {
  vi.useRealTimers();
});

const high: QueueItem['risk'] = { level: 'high', reasons: [{ level: 'high', text: 'force push to a protected branch' }] };
const pushCall = (over: Partial<QueueItem> = {}) =>
  makeItem({ toolName: 'Bash', args: { command: 'git push --force origin main' }, highRisk: true, risk: high, ...over });

function renderDetail(item: QueueItem, backend = new FakeBackend()) {
  backend.add(item);
  const ondecided = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided, onerror: vi.fn(), highRisk: false }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const approvals = () => backend.calls.filter((c) => c.method === 'approve');
  return { q, target, backend, ondecided, approvals };
}

function key(el: Element, type: 'keydown' | 'keyup', k: string, init: KeyboardEventInit = {}) {
  el.dispatchEvent(new KeyboardEvent(type, { key: k, bubbles: true, cancelable: true, ...init }));
}

function typeInto(input: HTMLInputElement, text: string) {
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('RiskChip', () => {
  it('names each level on one scale and draws "not rated" apart from low', () => {
    const chip = (risk: QueueItem['risk'] | null) => {
      const { target } = mountInBody(RiskChip, { props: { risk } });
      flushSync();
      return target.querySelector('[data-testid="risk-chip"]') as HTMLElement;
    };
    for (const [level, word] of [['low', 'Low'], ['medium', 'Medium'], ['high', 'High'], ['critical', 'Critical']] as const) {
      const c = chip({ level, reasons: [] });
      expect(c.textContent).toBe(word);
      expect(c.dataset.level).toBe(level);
      expect(c.classList.contains(level)).toBe(true);
    }
    const unrated = chip(null);
    expect(unrated.textContent).toBe('Not rated');
    expect(unrated.dataset.level).toBe('unrated');
    expect(unrated.classList.contains('low')).toBe(false);
    expect(chip(high).title).toBe('Risk: High\nforce push to a protected branch');
  });
});

describe('RiskNote', () => {
  const note = (item: QueueItem) => {
    const { target } = mountInBody(RiskNote, { props: { item } });
    flushSync();
    return target.querySelector('[data-testid="detail-risk"]') as HTMLElement | null;
  };

  it('shows the chip and every reason of a risky call, nothing for a low one, and says when a call is not rated', () => {
    const box = note(pushCall())!;
    expect(box.querySelector('[data-testid="detail-risk-chip"]')!.textContent).toBe('High');
    expect([...box.querySelectorAll('[data-testid="detail-risk-reason"]')].map((li) => li.textContent)).toEqual(['force push to a protected branch']);
    expect(note(makeItem())).toBeNull();
    const medium = note(makeItem({ risk: { level: 'medium', reasons: [{ level: 'medium', text: 'stops a system service' }] } }))!;
    expect(medium.dataset.level).toBe('medium');
    const unrated = note(makeItem({ risk: undefined as unknown as QueueItem['risk'] }))!;
    expect(unrated.dataset.level).toBe('unrated');
    expect(unrated.textContent).toContain('Not rated');
  });

  it('shows a reason quoting the agent with its hidden characters escaped and its look-alikes marked, never as markup', () => {
    const text = "look-alike character at /p\u0430yee<b>: U+0430 CYRILLIC SMALL LETTER A looks like 'a'";
    const box = note(makeItem({ risk: { level: 'high', reasons: [{ level: 'high', text }] } }))!;
    expect(box.querySelector('[data-mark="lookalike"]')!.textContent).toBe('\u0430');
    expect(box.querySelector('b')).toBeNull();
  });
});

describe('isDeliberate', () => {
  it('is true for high and critical calls, high-risk tools and hidden or look-alike characters, and false otherwise', () => {
    expect(isDeliberate(pushCall(), false)).toBe(true);
    expect(isDeliberate(makeItem({ risk: { level: 'critical', reasons: [] } }), false)).toBe(true);
    expect(isDeliberate(makeItem(), true)).toBe(true);
    expect(isDeliberate(makeItem({ args: { payee: 'P\u0430ypal' } }), false)).toBe(true);
    expect(isDeliberate(makeItem({ args: { file: 'a\u202Eb' } }), false)).toBe(true);
    expect(isDeliberate(makeItem({ args: { note: 'Привет' }, risk: { level: 'medium', reasons: [] } }), false)).toBe(false);
    expect(isDeliberate(makeItem(), false)).toBe(false);
  });
});

describe('the deliberate approval', () => {
  it('a high-risk call offers a distinct Approve whose step repeats the reasons and refuses a quick Enter or click', async () => {
    const { q, approvals } = renderDetail(pushCall());
    const approve = q('approve')!;
    expect(approve.dataset.deliberate).toBe('true');
    expect(approve.classList.contains('primary')).toBe(false);
    approve.click();
    flushSync();
    const step = q('approve-confirm-step')!;
    expect(step.dataset.deliberate).toBe('true');
    expect(q('approve-confirm-chip')!.textContent).toBe('High');
    expect(q('approve-confirm-reasons')!.textContent).toContain('force push to a protected branch');
    expect(q('grant-open')).toBeNull();
    // The field to type the tool name has the focus: Enter there, empty, approves nothing.
    expect(document.activeElement).toBe(q('approve-type'));
    key(q('approve-type')!, 'keydown', 'Enter');
    await settle();
    expect(q('approve-type-mismatch')).not.toBeNull();
    // A click, or Enter or Space pressed and let go, on the hold button approves nothing.
    const hold = q('approve-hold')!;
    hold.click();
    key(hold, 'keydown', 'Enter');
    key(hold, 'keyup', 'Enter');
    key(hold, 'keydown', ' ');
    key(hold, 'keyup', ' ');
    await settle();
    expect((q('approve-confirm') as HTMLButtonElement).disabled).toBe(true);
    expect(approvals()).toEqual([]);
  });

  it('approves once the tool name is typed exactly', async () => {
    const item = pushCall();
    const { q, approvals } = renderDetail(item);
    q('approve')!.click();
    flushSync();
    const input = q('approve-type') as HTMLInputElement;
    typeInto(input, 'bash');
    expect((q('approve-confirm') as HTMLButtonElement).disabled).toBe(true);
    typeInto(input, 'Bash');
    expect((q('approve-confirm') as HTMLButtonElement).disabled).toBe(false);
    key(input, 'keydown', 'Enter');
    await settle();
    expect(approvals()).toEqual([{ method: 'approve', args: [item.id, item.fingerprint] }]);
  });

  it('approves after the button is held for a second, by pointer or by Enter, and not when let go sooner', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const item = pushCall();
    const { q, approvals } = renderDetail(item);
    q('approve')!.click();
    flushSync();
    const hold = q('approve-hold')!;
    hold.dispatchEvent(new PointerEvent('pointerdown', { button: 0, bubbles: true }));
    flushSync();
    expect(hold.dataset.holding).toBe('true');
    vi.advanceTimersByTime(HOLD_MS - 100);
    hold.dispatchEvent(new PointerEvent('pointerup', { button: 0, bubbles: true }));
    vi.advanceTimersByTime(HOLD_MS);
    await settle();
    expect(approvals()).toEqual([]);
    // Held Enter: the first press starts it, the keyboard's repeats do not start it again.
    key(hold, 'keydown', 'Enter');
    vi.advanceTimersByTime(HOLD_MS / 2);
    key(hold, 'keydown', 'Enter', { repeat: true });
    vi.advanceTimersByTime(HOLD_MS / 2);
    await settle();
    expect(approvals()).toEqual([{ method: 'approve', args: [item.id, item.fingerprint] }]);
  });

  it('a call with a look-alike character is approved deliberately even when rated low, and the step warns of the characters', async () => {
    const item = makeItem({ toolName: 'update_payee', args: { payee: 'Acme P\u0430yments' } });
    const { q, approvals } = renderDetail(item);
    expect(q('approve')!.dataset.deliberate).toBe('true');
    q('approve')!.click();
    flushSync();
    expect(q('approve-confirm-warnings')!.textContent).toContain('U+0430 CYRILLIC SMALL LETTER A');
    expect(q('approve-confirm-step')!.textContent).toContain('hidden or look-alike characters');
    key(q('approve-type')!, 'keydown', 'Enter');
    await settle();
    expect(approvals()).toEqual([]);
  });

  it('a low-risk call keeps the everyday Approve and its Enter to confirm', async () => {
    const item = makeItem({ toolName: 'lookup_record' });
    const { q, approvals } = renderDetail(item);
    expect(q('approve')!.dataset.deliberate).toBeUndefined();
    expect(q('approve')!.classList.contains('primary')).toBe(true);
    q('approve')!.click();
    flushSync();
    expect(q('approve-hold')).toBeNull();
    expect(document.activeElement).toBe(q('approve-confirm'));
    key(q('approve-confirm')!, 'keydown', 'Enter');
    await settle();
    expect(approvals()).toEqual([{ method: 'approve', args: [item.id, item.fingerprint] }]);
  });
});
