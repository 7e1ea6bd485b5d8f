// Resolving an interrupted call in the console: from the Decided tab, the list row says it needs
// the operator's word; a resolution shows in place; a refused one is said in words in a banner and
// the call reloaded; the entry that ran a call again opens like any other call.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { NotifyWarning } from '../notify-warning.svelte';
import { FakeBackend, makeInterrupted } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Console from './Console.svelte';

const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The console on the Decided tab with the interrupted call `q1` selected. */
async function renderSelected(backend: FakeBackend) {
  const { target } = mountInBody(Console, { props: { notifyWarning: new NotifyWarning() }, context: backendContext(backend) });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  q('[data-testid="state-tab"][data-tab="decided"]')!.click();
  await settle();
  q('[data-testid="queue-item"][data-id="q1"]')!.click();
  flushSync();
  return { q, row: () => q('[data-testid="queue-item"][data-id="q1"] [data-testid="queue-item-resolution"]') };
}

describe('Console: an interrupted call', () => {
  it('is resolved in place: the detail and its row say how', async () => {
    const backend = new FakeBackend();
    backend.add(makeInterrupted({ id: 'q1' }));
    const { q, row } = await renderSelected(backend);
    expect(text(row())).toBe('Interrupted — did it run? Needs your word');

    q('[data-testid="resolve-did-not-run"]')!.click();
    await settle();
    expect(q('[data-testid="detail"]')!.dataset.id).toBe('q1');
    expect(text(q('[data-testid="resolution-summary"]'))).toMatch(/^Resolved by web at .+: it did not run$/);
    expect(q('[data-testid="resolve-ran"]')).toBeNull();
    expect(text(row())).toBe('Resolved: it did not run');
  });

  it('says a refused resolution in words and reloads the call, which then says who resolved it', async () => {
    const backend = new FakeBackend();
    const shown = makeInterrupted({ id: 'q1' });
    backend.add(shown);
    const { q } = await renderSelected(backend);
    // Resolved elsewhere (the CLI) since it was shown; no event came.
    await backend.resolve('q1', 'ran', shown.fingerprint);
    backend.add({ ...backend.items.get('q1')!, resolution: { ...backend.items.get('q1')!.resolution!, operator: 'bob (cli)' } });

    q('[data-testid="resolve-ran"]')!.click();
    await settle();
    const banner = q('[data-testid="error-banner"][data-code="already_decided"]')!;
    expect(banner).not.toBeNull();
    expect(banner.getAttribute('role')).toBe('alert');
    expect(text(banner)).toContain('Someone else already decided this call. It has been reloaded.');
    expect(text(banner)).toContain('this call was resolved already');
    expect(text(q('[data-testid="resolution-summary"]'))).toMatch(/^Resolved by bob \(cli\) at .+: it ran$/);
  });

  it('run again: confirmed, it shows the call resolved, and opens the new entry that ran it', async () => {
    const backend = new FakeBackend();
    const shown = makeInterrupted({ id: 'q1', allowed: ['ran', 'did_not_run', 'run_again'] });
    backend.add(shown);
    const { q } = await renderSelected(backend);
    q('[data-testid="resolve-run-again"]')!.click();
    await settle();
    expect(backend.calls.some((c) => c.method === 'resolve')).toBe(false);
    q('[data-testid="run-again-confirm"]')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'resolve')).toEqual([{ method: 'resolve', args: ['q1', 'run_again', shown.fingerprint] }]);
    expect(q('[data-testid="detail"]')!.dataset.id).toBe('q1');
    expect(text(q('[data-testid="resolution-summary"]'))).toMatch(/: run again$/);

    q('[data-testid="resolution-open-retry"]')!.click();
    await settle();
    const detail = q('[data-testid="detail"]')!;
    expect(detail.dataset.id).toBe('q1-again');
    expect(text(q('[data-testid="detail-state"]'))).toBe('delivered');
    expect(q('[data-testid="decision-result"]')!.dataset.kind).toBe('approve');
    expect(q('[data-testid="interrupted"]')).toBeNull();
  });
});
