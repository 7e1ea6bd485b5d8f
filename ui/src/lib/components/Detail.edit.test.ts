// Edit-then-approve in the detail view: the editor, what it shows live, and what it sends.
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Detail from './Detail.svelte';
import DecisionResult from './DecisionResult.svelte';

/** The fingerprint the server computes, from its canonical text, by Node's SHA-256. */
const sha = (canonical: string) => 'sha256:' + createHash('sha256').update(canonical, 'utf8').digest('hex');

const SHOWN_FP = sha('{"args":{"id":"rec-1"},"toolName":"delete_record"}');

function editable(over: Partial<QueueItem> = {}): QueueItem {
  return makeItem({ args: { id: 'rec-1' }, fingerprint: SHOWN_FP, allowed: ['approve', 'decline', 'edit'], ...over });
}

function render(item: QueueItem, opts: { highRisk?: boolean } = {}) {
  const backend = new FakeBackend();
  backend.add(item);
  const ondecided = vi.fn();
  const onerror = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided, onerror, highRisk: opts.highRisk ?? false }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, q, backend, ondecided, onerror };
}

/** Waits (polling, with a deadline) until `check` passes. */
async function until(check: () => void) {
  await vi.waitFor(
    () => {
      flushSync();
      check();
    },
    { timeout: 5000, interval: 10 },
  );
}

/** Waits for the shown fingerprint to be verified (Approve is refused until then on a mismatch). */
async function verified(q: (id: string) => HTMLElement | null) {
  await until(() => expect(q('fingerprint-check')!.dataset.status).toBe('verified'));
}

function type(textarea: HTMLTextAreaElement, text: string) {
  textarea.value = text;
  textarea.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

async function openEditor(q: (id: string) => HTMLElement | null) {
  await verified(q);
  q('edit-args-open')!.click();
  flushSync();
  return q('edit-text') as HTMLTextAreaElement;
}

/** The confirm step every approval asks for: its button. */
async function confirmEdited(q: (id: string) => HTMLElement | null) {
  flushSync();
  (q('edit-args')!.querySelector('[data-testid="approve-confirm"]') as HTMLButtonElement).click();
}

describe('Detail: edit the arguments, then approve', () => {
  it('is not offered when the call does not allow edits', async () => {
    const { q } = render(makeItem({ args: { id: 'rec-1' }, fingerprint: SHOWN_FP }));
    await verified(q);
    expect(q('approve')).not.toBeNull();
    expect(q('edit-args-open')).toBeNull();
    expect(q('edit-args')).toBeNull();
  });

  it('is offered next to Approve, opens on a focused textarea prefilled with the pretty arguments', async () => {
    const { q } = render(editable({ args: { id: 'rec-1', opts: { force: false } }, fingerprint: sha('{"args":{"id":"rec-1","opts":{"force":false}},"toolName":"delete_record"}') }));
    const open = q('edit-args-open') as HTMLButtonElement;
    expect(open.textContent).toBe('Edit arguments…');
    expect(open.tagName).toBe('BUTTON');
    const textarea = await openEditor(q);
    expect(textarea.value).toBe('{\n  "id": "rec-1",\n  "opts": {\n    "force": false\n  }\n}');
    expect(document.activeElement).toBe(textarea);
    expect(q('edit-parse')!.dataset.ok).toBe('true');
    expect(q('edit-changes')!.textContent).toMatch(/None/);
    expect((q('approve-edited') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows a parse error with its line and column, and cannot approve then', async () => {
    const { q } = render(editable());
    const textarea = await openEditor(q);
    type(textarea, '{\n  "id": rec-9\n}');
    const parse = q('edit-parse')!;
    expect(parse.dataset.ok).toBe('false');
    expect(parse.textContent).toContain('Not valid JSON at line 2, column 9');
    expect(textarea.getAttribute('aria-invalid')).toBe('true');
    expect(q('edit-fingerprint')).toBeNull();
    expect((q('approve-edited') as HTMLButtonElement).disabled).toBe(true);
  });

  it('recomputes the fingerprint of the edited arguments live, as the server would', async () => {
    const { q } = render(editable());
    const textarea = await openEditor(q);
    type(textarea, '{ "id": "rec-9", "why": "é\\u0000" }');
    const expected = sha('{"args":{"id":"rec-9","why":"é\\u0000"},"toolName":"delete_record"}');
    await until(() => expect(q('edit-fingerprint-full')?.textContent).toBe(expected));
    expect(q('edit-fingerprint-short')!.textContent).toBe(expected.slice(7, 19));
    // The call's own fingerprint stays the one shown.
    expect(q('fingerprint-full')!.textContent).toBe(SHOWN_FP);
  });

  it('summarizes what changed, added and removed, as text', async () => {
    const { q, target } = render(
      editable({ args: { id: 'rec-1', keep: true, tags: ['a'] }, fingerprint: sha('{"args":{"id":"rec-1","keep":true,"tags":["a"]},"toolName":"delete_record"}') }),
    );
    const textarea = await openEditor(q);
    type(textarea, '{"id": "rec-9", "tags": ["a", "<b>x</b>"], "<img src=x>": 1}');
    const changes = [...target.querySelectorAll('[data-testid="edit-change"]')].map((li) => [(li as HTMLElement).dataset.op, li.textContent!.replace(/\s+/g, ' ').trim()]);
    expect(changes).toEqual([
      ['changed', 'changed /id'],
      ['removed', 'removed /keep'],
      ['added', 'added /tags/1'],
      ['added', 'added /<img src=x>'],
    ]);
    expect(q('edit-changes')!.querySelector('img, b')).toBeNull();
    expect((q('approve-edited') as HTMLButtonElement).disabled).toBe(false);
  });

  it('sends the fingerprint shown and the parsed arguments', async () => {
    const { q, backend, ondecided } = render(editable());
    const textarea = await openEditor(q);
    type(textarea, '{"id": "rec-9"}');
    q('approve-edited')!.click();
    await confirmEdited(q);
    await settle({ rounds: 5, macrotasks: false });
    const call = backend.calls.find((c) => c.method === 'approveEdited')!;
    expect(call.args).toEqual(['q1', SHOWN_FP, { id: 'rec-9' }]);
    expect(backend.calls.some((c) => c.method === 'approve')).toBe(false);
    expect(ondecided).toHaveBeenCalledTimes(1);
    expect(ondecided.mock.calls[0][0].decision.kind).toBe('edit');
  });

  it('asks to confirm first, like Approve, saying so for a high-risk tool, whose approval takes the deliberate act', async () => {
    const { q, backend } = render(editable(), { highRisk: true });
    const textarea = await openEditor(q);
    type(textarea, '{"id": "rec-9"}');
    q('approve-edited')!.click();
    flushSync();
    const step = q('edit-args')!.querySelector('[data-testid="approve-confirm-step"]') as HTMLElement;
    expect(step.querySelector('[data-testid="approve-confirm-chip"]')!.textContent).toBe('High');
    expect(backend.calls.some((c) => c.method === 'approveEdited')).toBe(false);
    const confirmButton = q('edit-args')!.querySelector('[data-testid="approve-confirm"]') as HTMLButtonElement;
    expect(textarea.readOnly).toBe(true);
    // Issue 45: a quick click or Enter approves nothing; the tool name typed (or a hold) does.
    confirmButton.click();
    step.querySelector('[data-testid="approve-type"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle({ rounds: 5, macrotasks: false });
    expect(backend.calls.some((c) => c.method === 'approveEdited')).toBe(false);
    const typed = step.querySelector('[data-testid="approve-type"]') as HTMLInputElement;
    typed.value = 'delete_record';
    typed.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    confirmButton.click();
    await settle({ rounds: 5, macrotasks: false });
    expect(backend.calls.find((c) => c.method === 'approveEdited')!.args).toEqual(['q1', SHOWN_FP, { id: 'rec-9' }]);
  });

  it('shows in the confirm step the diff of the arguments as shown against as edited, as text', async () => {
    const { q, backend } = render(
      editable({ args: { id: 'rec-1', note: 'ok', path: '/tmp' }, fingerprint: sha('{"args":{"id":"rec-1","note":"ok","path":"/tmp"},"toolName":"delete_record"}') }),
    );
    const textarea = await openEditor(q);
    // Keys in another order (no change), one value changed, one hidden character and HTML in another.
    type(textarea, '{"path": "/tmp", "note": "ok\\u202E<img src=x onerror=alert(1)>", "id": "rec-9"}');
    expect(q('edit-diff')).toBeNull(); // only once approving
    q('approve-edited')!.click();
    flushSync();
    const step = q('edit-args')!.querySelector('[data-testid="approve-confirm-step"]')!;
    const pre = step.querySelector('[data-testid="edit-diff"]') as HTMLElement;
    expect(pre.tagName).toBe('PRE');
    const lines = [...pre.querySelectorAll(':scope > .line')].map((l) => [(l as HTMLElement).dataset.kind, l.textContent]);
    expect(lines).toEqual([
      ['hunk', '@@ -1,5 +1,5 @@'],
      ['context', ' {'],
      ['removed', 'removed -  "id": "rec-1",'],
      ['removed', 'removed -  "note": "ok",'],
      ['added', 'added +  "id": "rec-9",'],
      ['added', 'added +  "note": "ok\\u{202E}<img src=x onerror=alert(1)>",'],
      ['context', '   "path": "/tmp"'],
      ['context', ' }'],
    ]);
    // The hidden character is shown as its escape, marked; the HTML is text.
    const hidden = pre.querySelectorAll('[data-mark="hidden"]');
    expect([...hidden].map((h) => h.textContent)).toEqual(['\\u{202E}']);
    expect(pre.textContent).not.toContain('\u202E');
    expect(pre.querySelector('img')).toBeNull();
    const counts = step.querySelector('[data-testid="edit-diff-counts"]') as HTMLElement;
    expect(counts.querySelector('[aria-hidden="true"]')!.textContent).toBe('+2 −2');
    expect(counts.textContent).toContain('2 lines added, 2 lines removed');
    // Shown before the confirm button, which keeps the focus.
    const button = step.querySelector('[data-testid="approve-confirm"]') as HTMLButtonElement;
    expect(pre.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(document.activeElement).toBe(button);
    expect(backend.calls.some((c) => c.method === 'approveEdited')).toBe(false);
    // Cancelling the confirm step takes the diff away with it.
    (step.querySelector('[data-testid="approve-cancel"]') as HTMLButtonElement).click();
    flushSync();
    expect(q('edit-diff')).toBeNull();
  });

  it('shows invalid_arguments inline with the paths, without a banner', async () => {
    const { q, backend, onerror, ondecided, target } = render(editable());
    const textarea = await openEditor(q);
    type(textarea, '{"id": 9}');
    backend.failNext = new ApiError('invalid_arguments', 'the arguments do not match the input schema', { errors: [{ path: '/id', message: 'expected string, got <number>' }] }, 422);
    q('approve-edited')!.click();
    await confirmEdited(q);
    await settle({ rounds: 5, macrotasks: false });
    flushSync();
    expect(onerror).not.toHaveBeenCalled();
    expect(ondecided).not.toHaveBeenCalled();
    expect(q('edit-error')!.dataset.code).toBe('invalid_arguments');
    const items = [...target.querySelectorAll('[data-testid="edit-error-item"]')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(items).toEqual(['/id: expected string, got <number>']);
    // The text stays, to be fixed.
    expect((q('edit-text') as HTMLTextAreaElement).value).toBe('{"id": 9}');
  });

  it('sends other refusals to the usual error path', async () => {
    const { q, backend, onerror } = render(editable());
    const textarea = await openEditor(q);
    type(textarea, '{"id": "rec-9"}');
    backend.failNext = new ApiError('fingerprint_mismatch', 'changed', null, 409);
    q('approve-edited')!.click();
    await confirmEdited(q);
    await settle({ rounds: 5, macrotasks: false });
    expect(onerror).toHaveBeenCalledTimes(1);
    expect(onerror.mock.calls[0][0].code).toBe('fingerprint_mismatch');
    expect(q('edit-error')).toBeNull();
  });

  it('Cancel closes the editor and gives the focus back to its button', async () => {
    const { q } = render(editable());
    await openEditor(q);
    q('edit-cancel')!.click();
    await settle({ rounds: 3, macrotasks: false });
    expect(q('edit-args')).toBeNull();
    expect(document.activeElement).toBe(q('edit-args-open'));
  });
});

describe('DecisionResult: an edited approval', () => {
  it('reads "Approved with edited arguments" with the edited arguments and both fingerprints', () => {
    const edited = sha('{"args":{"id":"rec-9"},"toolName":"delete_record"}');
    const item = makeItem({
      state: 'delivered',
      allowed: [],
      decision: {
        kind: 'edit',
        fingerprint: SHOWN_FP,
        editedFingerprint: edited,
        data: { id: 'rec-9' },
        reason: null,
        operator: 'web',
        decidedAt: '2025-01-01T10:01:00Z',
        delivery: 'delivered',
        outcome: { result: { deleted: 'rec-9' } },
        attempts: 1,
        lastError: null,
        nextAttemptAt: null,
        expiredAfterSecs: null,
        receipt: null,
      },
    });
    const { target } = mountInBody(DecisionResult, { props: { item } });
    flushSync();
    const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
    expect(q('decision-kind')!.textContent).toBe('Approved with edited arguments');
    expect(q('decision-fingerprint-shown')!.textContent).toContain(SHOWN_FP);
    expect(q('decision-fingerprint-ran')!.textContent).toContain(edited);
    expect(q('decision-edited-args')!.textContent).toContain('rec-9');
    expect(q('decision-data')).toBeNull();
  });
});
