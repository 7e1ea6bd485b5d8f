// An interrupted call (the console stopped while its tool ran): the detail says what happened,
// offers exactly the resolutions the call allows, sends them bound to the fingerprint on screen,
// asks to confirm before running the tool again, and once resolved says who said what.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type QueueItem, type Resolution } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeInterrupted, makeItem } from '../testing/fake-backend';
import { mountInBody, settle as settleAll, type } from '../testing/mount';
import Detail from './Detail.svelte';

function render(item: QueueItem, backend = new FakeBackend()) {
  const ondecided = vi.fn();
  const onerror = vi.fn();
  const onupdated = vi.fn();
  const onopen = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided, onerror, onupdated, onopen }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { q, target, backend, ondecided, onerror, onupdated, onopen };
}

const settle = () => settleAll({ rounds: 5, macrotasks: false });
const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const CHOICES = ['resolve-ran', 'resolve-did-not-run', 'resolve-run-again'];

function resolution(over: Partial<Resolution> = {}): Resolution {
  return { kind: 'ran', result: null, fingerprint: 'sha256:' + 'ab'.repeat(32), operator: 'alice (web)', resolvedAt: '2025-01-01T10:05:00Z', retryItem: null, ...over };
}

/** An interrupted call the fake backend holds, rendered. */
function renderHeld(over: Partial<QueueItem> = {}) {
  const backend = new FakeBackend();
  const item = makeInterrupted(over);
  backend.add(item);
  return { item, ...render(item, backend) };
}

describe('Detail of an interrupted call', () => {
  it('says what happened and offers exactly the resolutions the call allows', () => {
    const offered = (over: Partial<QueueItem>) => {
      const { q, target } = render(makeInterrupted(over));
      const shown = CHOICES.filter((id) => q(id) !== null);
      const none = q('resolution-none') !== null;
      target.remove();
      return { shown, none };
    };
    const { q } = render(makeInterrupted());
    expect(text(q('interrupted-what'))).toBe("The console stopped while this call's tool was running, so it is not known whether it ran. It was not run again.");
    expect(text(q('interrupted-waits'))).toBe('Its run waits for your word: say what became of the call.');
    // No decision controls: the call was decided (approved) before it was interrupted.
    expect(q('approve')).toBeNull();
    expect(q('decline')).toBeNull();

    expect(offered({})).toEqual({ shown: ['resolve-ran', 'resolve-did-not-run'], none: false });
    expect(offered({ allowed: ['ran', 'did_not_run', 'run_again'] })).toEqual({ shown: CHOICES, none: false });
    expect(offered({ allowed: ['did_not_run'] })).toEqual({ shown: ['resolve-did-not-run'], none: false });
    expect(offered({ allowed: [] })).toEqual({ shown: [], none: true });
    // A call that was not interrupted offers none, whatever its `allowed` says.
    expect(offered({ state: 'delivered' }).shown).toEqual([]);
  });

  it('shows nothing of it for a pending call', () => {
    const { q } = render(makeItem());
    expect(q('interrupted')).toBeNull();
    expect(q('approve')).not.toBeNull();
  });

  it('"It ran" sends what was typed: its JSON value, the text itself, or no result', async () => {
    const cases: [string, unknown[], string][] = [
      ['{"deleted": ["rec-1"], "rows": 1}', [{ deleted: ['rec-1'], rows: 1 }], 'json'],
      ['deleted rec-1', ['deleted rec-1'], 'text'],
      ['   ', [], 'none'],
    ];
    for (const [typed, result, kind] of cases) {
      const { item, q, backend, onupdated, onerror, target } = renderHeld();
      type(q('resolve-result'), typed);
      flushSync();
      expect(q('resolve-result-as')!.dataset.kind).toBe(kind);
      q('resolve-ran')!.click();
      await settle();
      expect(backend.calls).toEqual([{ method: 'resolve', args: [item.id, 'ran', item.fingerprint, ...result] }]);
      expect(onerror).not.toHaveBeenCalled();
      expect(onupdated).toHaveBeenCalledOnce();
      expect(onupdated.mock.calls[0][0]).toMatchObject({ id: item.id, resolution: { kind: 'ran', fingerprint: item.fingerprint } });
      target.remove();
    }
  });

  it('"It did not run" sends did_not_run with the fingerprint on screen and no result', async () => {
    const { item, q, backend, onupdated } = renderHeld();
    expect(text(q('resolve-did-not-run'))).toBe('It did not run — tell the agent it failed');
    type(q('resolve-result'), 'typed for "it ran", not sent with this');
    q('resolve-did-not-run')!.click();
    await settle();
    expect(backend.calls).toEqual([{ method: 'resolve', args: [item.id, 'did_not_run', item.fingerprint] }]);
    expect(onupdated.mock.calls[0][0].resolution.kind).toBe('did_not_run');
  });

  it('"Run it again" asks to confirm first, then sends run_again with the fingerprint on screen and shows the new entry', async () => {
    const { item, q, backend, onupdated } = renderHeld({ allowed: ['ran', 'did_not_run', 'run_again'] });
    expect(text(q('run-again-fingerprint'))).toBe(item.fingerprint.slice('sha256:'.length, 'sha256:'.length + 12));
    expect(text(q('resolve-run-again')!.parentElement)).toContain('runs delete_record again with the same arguments');

    q('resolve-run-again')!.click();
    await settle();
    expect(backend.calls).toEqual([]);
    const confirm = q('run-again-confirm')!;
    expect(text(confirm)).toBe('Run delete_record again?');
    expect(document.activeElement).toBe(confirm);

    // Esc backs out, sending nothing.
    confirm.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
    await settle();
    expect(q('run-again-confirm')).toBeNull();
    expect(backend.calls).toEqual([]);

    q('resolve-run-again')!.click();
    await settle();
    q('run-again-confirm')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle();
    expect(backend.calls).toEqual([
      { method: 'resolve', args: [item.id, 'run_again', item.fingerprint] },
      { method: 'getItem', args: [item.id] },
    ]);
    // The new entry that ran the call, then the call itself, resolved.
    const [[retry], [resolved]] = onupdated.mock.calls;
    expect(retry).toMatchObject({ id: `${item.id}-again`, state: 'delivered', decision: { kind: 'approve' } });
    expect(resolved).toMatchObject({ id: item.id, resolution: { kind: 'run_again', retryItem: retry.id } });
  });

  it('shows a resolved call: who, when and what, what the agent was told, and nothing to choose', () => {
    const { q } = render(makeInterrupted({ allowed: [], resolution: resolution({ kind: 'ran', result: { rows: 3 } }) }));
    expect(text(q('resolution-summary'))).toMatch(/^Resolved by alice \(web\) at .+: it ran$/);
    expect(q('resolution-summary')!.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T10:05:00Z');
    expect(text(q('resolution-result'))).toContain('rows');
    expect(text(q('resolution-result'))).toContain('3');
    for (const id of [...CHOICES, 'resolve-result', 'interrupted-waits', 'resolution-none']) expect(q(id), id).toBeNull();

    const didNot = render(makeInterrupted({ allowed: [], resolution: resolution({ kind: 'did_not_run', result: { error: 'it did not run' } }) }));
    expect(text(didNot.q('resolution-summary'))).toMatch(/: it did not run$/);
  });

  it('opens the entry that ran the call again', () => {
    const { q, onopen } = render(makeInterrupted({ allowed: [], resolution: resolution({ kind: 'run_again', retryItem: 'q9' }) }));
    expect(text(q('resolution-summary'))).toMatch(/: run again$/);
    expect(text(q('resolution-retry'))).toContain('q9');
    expect(q('resolution-result')).toBeNull();
    q('resolution-open-retry')!.click();
    expect(onopen).toHaveBeenCalledWith('q9');
  });

  it('hands a refused resolution to the parent (already resolved elsewhere), as a refused decision', async () => {
    const backend = new FakeBackend();
    const shown = makeInterrupted();
    // Resolved by someone else since it was shown.
    backend.add({ ...shown, allowed: [], resolution: resolution({ operator: 'bob (cli)' }) });
    const { q, onerror, onupdated } = render(shown, backend);
    q('resolve-ran')!.click();
    await settle();
    expect(onupdated).not.toHaveBeenCalled();
    expect(onerror).toHaveBeenCalledOnce();
    const [err, item] = onerror.mock.calls[0];
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('already_decided');
    expect(item).toBe(shown);
    expect((q('resolve-ran') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows the result and the operator as text, never as HTML', () => {
    const { q } = render(makeInterrupted({ allowed: [], resolution: resolution({ result: '<b>x</b>', operator: '<i>eve</i> (web)' }) }));
    expect(q('resolution-result')!.querySelector('b')).toBeNull();
    expect(text(q('resolution-result'))).toContain('<b>x</b>');
    expect(q('resolution-operator')!.querySelector('i')).toBeNull();
    expect(text(q('resolution-operator'))).toBe('<i>eve</i> (web)');
  });
});
