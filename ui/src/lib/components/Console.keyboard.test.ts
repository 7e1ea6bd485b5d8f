// Keyboard triage through the whole console: every step by key presses only (keys.ts, triage.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../backend/backend';
import { backendContext } from '../backend/context';
import { SETTLE_MS } from '../keys';
import { NotifyWarning } from '../notify-warning.svelte';
import { FakeBackend, fingerprintOf, makeItem } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import Console from './Console.svelte';

/** The true fingerprint of call n (`makeItem` computes it from the tool name and arguments). */
const fp = (n: number) => fingerprintOf('delete_record', { id: `rec-${n}` });

/** Five pending calls, listed c1 (newest) to c5. */
function fiveCalls(backend: FakeBackend) {
  for (let n = 1; n <= 5; n++) {
    backend.add(makeItem({ id: `c${n}`, args: { id: `rec-${n}` }, pausedAt: `2025-01-01T1${9 - n}:00:00Z` }));
  }
}

async function render(backend: FakeBackend) {
  const { target } = mountInBody(Console, { props: { notifyWarning: new NotifyWarning() }, context: backendContext(backend) });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  const tid = (id: string) => q(`[data-testid="${id}"]`);
  const rows = () => [...target.querySelectorAll<HTMLElement>('[data-testid="queue-item"]')].map((e) => e.dataset.id);
  const option = (id: string) => q(`[data-testid="queue-item"][data-id="${id}"]`);
  const shown = () => tid('detail')?.dataset.id ?? null;
  const decisions = () => backend.calls.filter((c) => ['approve', 'decline', 'resume'].includes(c.method));
  return { q, tid, rows, option, shown, decisions };
}

/** The clock `ms` later (Date only, then still; the timers run as usual). */
function later(ms: number) {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + ms });
}

afterEach(() => {
  vi.useRealTimers();
});

/** A key pressed where the focus is, as a browser would send it. */
async function press(key: string, init: KeyboardEventInit = {}) {
  const target = document.activeElement ?? document.body;
  target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }));
  await settle({ rounds: 3 });
}

describe('Console keyboard triage', () => {
  it('clears a queue by keyboard alone: j, a Enter, d with a reason and Enter, a Enter…', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    const { tid, rows, option, shown, decisions } = await render(backend);
    expect(rows()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(shown()).toBeNull();

    await press('j');
    expect(shown()).toBe('c1');
    expect(document.activeElement).toBe(option('c1'));
    expect(option('c1')!.getAttribute('aria-selected')).toBe('true');
    expect(option('c1')!.tabIndex).toBe(0);
    expect(option('c2')!.tabIndex).toBe(-1);

    await press('a');
    // Nothing sent yet: the confirm step has the focus.
    expect(decisions()).toEqual([]);
    expect(document.activeElement).toBe(tid('approve-confirm'));
    await press('Enter');
    expect(decisions()).toEqual([{ method: 'approve', args: ['c1', fp(1)] }]);
    // The next call is shown and has the focus, in the list.
    expect(shown()).toBe('c2');
    expect(document.activeElement).toBe(option('c2'));
    expect(tid('triage-note')!.textContent).toBe('Approved delete_record. Showing the next call.');
    expect(tid('pending-count')!.textContent).toBe('4');

    await press('d');
    const reason = tid('decline-reason') as HTMLInputElement;
    expect(document.activeElement).toBe(reason);
    // Letters typed into the reason are text, not shortcuts.
    for (const k of ['a', 'j', 'd', '/', '?']) await press(k);
    expect(shown()).toBe('c2');
    expect(tid('shortcut-help')).toBeNull();
    type(reason, 'not today');
    await press('Enter');
    expect(decisions()[1]).toEqual({ method: 'decline', args: ['c2', fp(2), 'not today'] });
    expect(shown()).toBe('c3');
    expect(document.activeElement).toBe(option('c3'));

    for (let n = 0; n < 3; n++) {
      await press('a');
      await press('Enter');
    }
    expect(decisions().map((c) => [c.method, c.args[0]])).toEqual([
      ['approve', 'c1'],
      ['decline', 'c2'],
      ['approve', 'c3'],
      ['approve', 'c4'],
      ['approve', 'c5'],
    ]);
    expect(rows()).toEqual([]);
    expect(tid('pending-count')!.textContent).toBe('0');
    // None left: the last call stays, with its result.
    expect(shown()).toBe('c5');
    expect(tid('decision-kind')!.textContent).toBe('Approved');
    // Nothing more to approve: a says so, and the letter keys pause until Esc.
    await press('a');
    expect(decisions()).toHaveLength(5);
    expect(tid('triage-note')!.textContent).toBe(
      'a does nothing here: this call is already decided. The letter keys are paused until you press Esc, so what you type next does nothing.',
    );
  });

  it('does not decline on the Enter that ends an IME composition in the reason', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    const { tid, decisions } = await render(backend);
    await press('j');
    await press('d');
    type(tid('decline-reason'), '却下');
    await press('Enter', { isComposing: true });
    expect(decisions()).toEqual([]);
    await press('Enter');
    expect(decisions()).toEqual([{ method: 'decline', args: ['c1', fp(1), '却下'] }]);
  });

  it('moves with j/k anywhere and with the arrows, Home and End in the list; Enter moves to the details', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    const { shown, option, tid } = await render(backend);
    await press('k');
    expect(shown()).toBe('c5');
    await press('k');
    expect(shown()).toBe('c4');
    await press('ArrowUp');
    expect(shown()).toBe('c3');
    await press('Home');
    expect(shown()).toBe('c1');
    await press('End');
    expect(shown()).toBe('c5');
    await press('ArrowDown');
    expect(shown()).toBe('c5');

    await press('Enter');
    expect(document.activeElement).toBe(tid('detail-tool'));
    // Out of the list, the arrows scroll the page and select nothing.
    await press('ArrowUp');
    expect(shown()).toBe('c5');
    await press('j', { repeat: true }); // held down: keeps moving, clamped at the end
    expect(shown()).toBe('c5');
    expect(document.activeElement).toBe(option('c5'));
    // Keys with Ctrl, Alt or Meta belong to the browser.
    await press('k', { ctrlKey: true });
    await press('a', { metaKey: true });
    expect(shown()).toBe('c5');
    expect(backend.calls.filter((c) => c.method === 'approve')).toEqual([]);
  });

  it('asks to confirm every tool, saying so for a high-risk one: nothing sent until Enter, nothing at all after Esc', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    backend.add(makeItem({ id: 'safe', toolName: 'read_record', pausedAt: '2025-01-01T20:00:00Z' }));
    backend.notifySettings = { ...backend.notifySettings, highRiskTools: ['delete_record'] };
    const { tid, option, shown, decisions } = await render(backend);

    // A tool that is not high-risk asks too.
    await press('j');
    expect(shown()).toBe('safe');
    expect(tid('approve')!.dataset.highRisk).toBeUndefined();
    expect(tid('detail-high-risk')).toBeNull();
    await press('a');
    expect(decisions()).toEqual([]);
    expect(tid('approve-confirm')!.textContent!.trim()).toBe('Approve read_record?');
    expect(tid('approve-confirm-step')!.textContent).toContain('Enter to confirm, Esc to cancel.');
    expect(tid('approve-confirm-step')!.textContent).not.toContain('High-risk');
    // Typed letters and Space (a button's own activation) confirm nothing and do nothing else.
    for (const k of ['k', 'b', ' ', 'd', 'a', 'j']) await press(k);
    document.activeElement!.dispatchEvent(new KeyboardEvent('keyup', { key: ' ', bubbles: true, cancelable: true }));
    await settle({ rounds: 2 });
    expect(decisions()).toEqual([]);
    expect(shown()).toBe('safe');
    expect(document.activeElement).toBe(tid('approve-confirm'));
    await press('Enter');
    expect(decisions().map((c) => c.args[0])).toEqual(['safe']);
    expect(shown()).toBe('c1');
    expect(tid('approve')!.dataset.highRisk).toBe('true');
    expect(tid('detail-high-risk')!.textContent).toContain('high risk');

    // Issue 45: a high-risk call ignores decision keys just after it appeared (a key meant for the call before).
    await press('a');
    expect(tid('approve-confirm-step')).toBeNull();
    expect(tid('keys-settling')).not.toBeNull();
    expect(decisions()).toHaveLength(1);
    later(SETTLE_MS);

    await press('a');
    const step = tid('approve-confirm-step')!;
    expect(step.dataset.deliberate).toBe('true');
    expect(step.textContent).toContain('delete_record');
    expect(tid('approve-confirm-chip')!.textContent).toBe('High');
    expect(document.activeElement).toBe(tid('approve-type'));
    // `a` then Enter does not approve it.
    await press('Enter');
    expect(decisions()).toHaveLength(1);

    await press('Escape');
    expect(tid('approve-confirm-step')).toBeNull();
    expect(decisions()).toHaveLength(1);
    expect(tid('triage-note')!.textContent).toBe('Cancelled: nothing was decided.');
    // Back where the operator was.
    expect(document.activeElement).toBe(option('c1'));

    await press('a');
    // The tool name typed: a held-down Enter confirms nothing; a fresh one does.
    const typed = tid('approve-type') as HTMLInputElement;
    typed.value = 'delete_record';
    typed.dispatchEvent(new Event('input', { bubbles: true }));
    await press('Enter', { repeat: true });
    expect(decisions()).toHaveLength(1);
    await press('Enter');
    expect(decisions()[1]).toEqual({ method: 'approve', args: ['c1', fp(1)] });
    expect(shown()).toBe('c2');
  });

  it('asks to confirm a click on Approve for a high-risk tool too, and approves only on the deliberate act', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    backend.notifySettings = { ...backend.notifySettings, highRiskTools: ['delete_record'] };
    const { tid, option, shown, decisions } = await render(backend);
    option('c3')!.click();
    await settle();
    tid('approve')!.click();
    await settle();
    expect(decisions()).toEqual([]);
    expect(document.activeElement).toBe(tid('approve-type'));
    tid('approve-cancel')!.click();
    await settle();
    expect(tid('approve-confirm-step')).toBeNull();
    expect(document.activeElement).toBe(tid('approve'));
    expect(decisions()).toEqual([]);

    tid('approve')!.click();
    await settle();
    tid('approve-confirm')!.click();
    await settle();
    expect(decisions()).toEqual([]);
    const typed = tid('approve-type') as HTMLInputElement;
    typed.value = 'delete_record';
    typed.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    tid('approve-confirm')!.click();
    await settle();
    expect(decisions()).toEqual([{ method: 'approve', args: ['c3', fp(3)] }]);
    expect(shown()).toBe('c4');
  });

  it('confirms every approval while the high-risk tools cannot be read', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    backend.failSettings = new ApiError('network', 'down');
    const { tid, decisions } = await render(backend);
    await press('j');
    await press('a');
    expect(tid('approve-confirm')).not.toBeNull();
    expect(decisions()).toEqual([]);
  });

  it('opens and closes the shortcut help with ? and Esc, giving the focus back', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    const { tid, option, shown } = await render(backend);
    await press('j');
    await press('?');
    const help = tid('shortcut-help')!;
    expect(help.tagName).toBe('DIALOG');
    expect(help.hasAttribute('open')).toBe(true);
    expect(help.getAttribute('aria-modal')).toBe('true');
    expect(help.textContent).toContain('Approve the open call');
    expect(document.activeElement).toBe(tid('shortcut-help-close'));
    // While it is open, the other shortcuts do nothing.
    await press('j');
    expect(shown()).toBe('c1');
    await press('Escape');
    expect(tid('shortcut-help')).toBeNull();
    expect(document.activeElement).toBe(option('c1'));

    await press('?');
    expect(tid('shortcut-help')).not.toBeNull();
    await press('?');
    expect(tid('shortcut-help')).toBeNull();

    // The header button opens it for mouse users.
    tid('shortcut-help-open')!.click();
    await settle();
    expect(tid('shortcut-help')).not.toBeNull();
    tid('shortcut-help-close')!.click();
    await settle();
    expect(tid('shortcut-help')).toBeNull();
  });

  it('/ focuses the search, which filters the loaded calls; Esc goes back to the list', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    const { tid, rows, option, shown } = await render(backend);
    await press('/');
    const search = tid('queue-search') as HTMLInputElement;
    expect(document.activeElement).toBe(search);
    expect(search.labels![0].textContent).toBe('Search');
    type(search, 'REC-3');
    await settle();
    expect(rows()).toEqual(['c3']);
    await press('Escape');
    expect(document.activeElement).toBe(option('c3'));
    await press('Enter');
    expect(shown()).toBe('c3');

    await press('/');
    type(search, 'no such thing');
    await settle();
    expect(rows()).toEqual([]);
    expect(tid('search-empty')).not.toBeNull();
    expect(tid('pending-count')!.textContent).toBe('5');
  });

  it("r goes to the first field of a suspended call's form; a says it does not apply and pauses the keys until Esc", async () => {
    const backend = new FakeBackend();
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    backend.add(
      makeItem({ id: 's1', kind: 'suspend', toolName: 'ask_operator', resumeSchema: schema, suspendPayload: { question: 'Which region?' }, allowed: ['resume', 'decline'] }),
    );
    // A remote engine's suspended call: it cannot be declined.
    backend.add(makeItem({ id: 's2', kind: 'suspend', toolName: 'ask_operator', resumeSchema: schema, engine: 'prod', pausedAt: '2024-12-31T10:00:00Z' }));
    const { tid, q, shown, decisions } = await render(backend);
    const note = () => tid('triage-note')!.textContent;
    await press('j');
    await press('a');
    expect(note()).toBe(
      'a does nothing here: this call asks a question, it is answered (r), not approved. The letter keys are paused until you press Esc, so what you type next does nothing.',
    );
    // What is typed next, as if into a field: it moves nothing, opens nothing, lands nowhere.
    for (const k of [...'kbd reason and more']) await press(k);
    await press('Enter');
    expect(decisions()).toEqual([]);
    expect(shown()).toBe('s1');
    expect(note()).toBe('The letter keys are paused: press Esc first.');
    expect((q('[data-testid="resume-form"] input[name="answer"]') as HTMLInputElement).value).toBe('');
    expect(document.activeElement).toBe(q('[data-testid="queue-item"][data-id="s1"]'));
    // The help opens even so, and closes with Esc; the letters stay paused until the next Esc.
    await press('?');
    expect(tid('shortcut-help')).not.toBeNull();
    await press('Escape');
    expect(tid('shortcut-help')).toBeNull();
    await press('j');
    expect(shown()).toBe('s1');
    await press('Escape');
    expect(note()).toBe('The keys work again.');

    await press('r');
    const answer = q('[data-testid="resume-form"] input[name="answer"]') as HTMLInputElement;
    expect(document.activeElement).toBe(answer);
    type(answer, 'eu-west');
    // Esc backs out of the answer: nothing sent, nothing kept for later.
    await press('Escape');
    expect(decisions()).toEqual([]);
    expect(note()).toBe('Cancelled: nothing was decided.');
    expect(document.activeElement).toBe(q('[data-testid="queue-item"][data-id="s1"]'));
    expect((q('[data-testid="resume-form"] input[name="answer"]') as HTMLInputElement).value).toBe('');

    // The local engine's suspended call can be declined: d goes to its reason; Esc empties it.
    await press('d');
    const reason = tid('decline-reason') as HTMLInputElement;
    expect(document.activeElement).toBe(reason);
    type(reason, 'not now');
    await press('Escape');
    expect(reason.value).toBe('');
    expect(decisions()).toEqual([]);
    await press('d');
    type(reason, 'cannot say');
    await press('Enter');
    expect(decisions()).toEqual([{ method: 'decline', args: ['s1', fingerprintOf('ask_operator', { id: 'rec-1' }), 'cannot say'] }]);

    // The remote one cannot: d says so.
    expect(shown()).toBe('s2');
    await press('d');
    expect(note()).toMatch(/^d does nothing here: the engine of this call cannot decline it\./);
    expect(decisions()).toHaveLength(1);
  });

  it('e opens the argument editor of a call that allows edits, where letters are typed, not shortcuts', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'e1', args: { id: 'rec-1' }, allowed: ['approve', 'decline', 'edit'] }));
    backend.add(makeItem({ id: 'n1', args: { id: 'rec-2' }, pausedAt: '2024-12-31T10:00:00Z' }));
    const { tid, shown, decisions } = await render(backend);
    await press('j');
    expect(shown()).toBe('e1');
    // The fingerprint check runs first (Web Crypto): wait for it, as an operator would see it.
    await expect.poll(async () => (await settle({ rounds: 1 }), tid('fingerprint-check')?.dataset.status), { timeout: 5000 }).toBe('verified');
    await press('e');
    expect(document.activeElement).toBe(tid('edit-text'));
    await press('a');
    expect(decisions()).toEqual([]);
    // Esc backs out of the edit: the editor closes, nothing sent.
    await press('Escape');
    expect(tid('edit-args')).toBeNull();
    expect(tid('triage-note')!.textContent).toBe('Cancelled: nothing was decided.');
    await press('j');
    expect(shown()).toBe('n1');
    await press('e');
    expect(tid('edit-args')).toBeNull();
    expect(tid('triage-note')!.textContent).toMatch(/^e does nothing here: the engine of this call cannot run it with edited arguments\./);
    await press('r');
    expect(tid('triage-note')!.textContent).toBe('The letter keys are paused: press Esc first.');
    await press('Escape');
    await press('r');
    expect(tid('triage-note')!.textContent).toMatch(/^r does nothing here: this call asks for approval \(a\), not for an answer\./);
    // A click is deliberate: it ends the pause.
    window.dispatchEvent(new Event('pointerdown'));
    await settle({ rounds: 2 });
    await press('k');
    expect(shown()).toBe('e1');
  });

  it('after a decision opens the next call below the decided one, even when its event came first', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    // The server tells the change before it answers the decision: the call leaves the list first.
    backend.beforeAnswer = async (item) => {
      backend.subscriber?.onEvent({ kind: 'queue', type: 'updated', id: item.id });
      await settle({ rounds: 3 });
    };
    const { rows, shown, option, decisions } = await render(backend);
    option('c3')!.click();
    await settle();
    expect(shown()).toBe('c3');
    await press('a');
    await press('Enter');
    expect(decisions().map((c) => c.args[0])).toEqual(['c3']);
    expect(rows()).toEqual(['c1', 'c2', 'c4', 'c5']);
    expect(shown()).toBe('c4');
    await press('d');
    await press('Enter');
    expect(shown()).toBe('c5');
    // The last one: the nearest above.
    await press('a');
    await press('Enter');
    expect(shown()).toBe('c2');
  });

  it('lists every key in the help', async () => {
    const backend = new FakeBackend();
    fiveCalls(backend);
    const { tid } = await render(backend);
    await press('?');
    const keys = [...tid('shortcut-help')!.querySelectorAll('kbd')].map((k) => k.textContent);
    for (const k of ['j', '↓', 'k', '↑', 'Home', 'End', 'Space', 'Enter', 'a', 'e', 'd', 'r', '/', '?', 'Esc']) expect(keys).toContain(k);
    expect(tid('shortcut-help')!.textContent).toContain('Nothing is decided without Enter (or a click) at the end.');
  });
});
