// Shadow grants in the UI: the form makes one (it approves nothing, and says so); the Grants view
// marks it and shows what it would have done beside what operators did, as text.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { FakeBackend, makeGrant, makeItem } from '../testing/fake-backend';
import { check, mountInBody, settle } from '../testing/mount';
import Detail from './Detail.svelte';
import GrantsView from './GrantsView.svelte';

describe('shadow grants', () => {
  it('the form sends shadow, asks nothing about waiting calls, and says the grant approves nothing', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
    flushSync();
    const q = (id: string) => target.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    q('grant-open')!.click();
    await settle();
    check(q('grant-shadow'), true);
    await settle();
    expect((q('grant-leave-waiting') as HTMLInputElement).disabled).toBe(true);
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    const sent = backend.calls.find((c) => c.method === 'createGrant')!.args[0] as Record<string, unknown>;
    expect(sent).toMatchObject({ shadow: true, applyToWaiting: false });
    expect(q('grant-made-shadow')).not.toBeNull();
    expect(q('grant-made-count')).toBeNull();
    expect(backend.items.get(item.id)!.state).toBe('pending');
  });

  it('the Grants view marks a shadow grant and shows its report, declined calls as text', async () => {
    const backend = new FakeBackend();
    const grant = makeGrant({ id: 'g-s', shadow: true, toolName: 'refund' });
    backend.grants = [grant];
    backend.shadow = {
      grants: [
        {
          grant,
          wouldApprove: 3,
          agreed: 1,
          declined: [{ item: 'q1', args: { order: '<b>o-3</b>' }, operator: 'alice (web)', reason: 'wrong customer' }],
          expired: 0,
          waiting: 1,
          heldBack: 1,
          savedSecs: 125,
          cut: false,
        },
      ],
    };
    const { target } = mountInBody(GrantsView, { props: {}, context: backendContext(backend) });
    await settle();
    const q = (id: string) => target.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    expect(q('grant-shadow-badge')).not.toBeNull();
    expect(q('shadow-agreed')!.dataset.count).toBe('1');
    expect(q('shadow-declined')!.dataset.count).toBe('1');
    const miss = q('shadow-miss')!;
    expect(miss.textContent).toContain('<b>o-3</b>');
    expect(miss.textContent).toContain('wrong customer');
    expect(miss.querySelector('b')).toBeNull();
    expect(q('shadow-saved')!.textContent).toMatch(/2 min/);
  });

  it('reads no report while there is no shadow grant', async () => {
    const backend = new FakeBackend();
    backend.grants = [makeGrant({ id: 'g-1' })];
    const { target } = mountInBody(GrantsView, { props: {}, context: backendContext(backend) });
    await settle();
    expect(target.querySelector('[data-testid="shadow-report"]')).toBeNull();
    expect(backend.calls.some((c) => c.method === 'shadowReport')).toBe(false);
  });
});
