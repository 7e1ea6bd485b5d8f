// What led to a call, in its detail: the conversation's last messages as text, said to be untrusted,
// or why there is none.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type CallReason } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Detail from './Detail.svelte';

async function render(reason?: CallReason) {
  const backend = new FakeBackend();
  const item = makeItem({ id: 'r1' });
  backend.add(item);
  if (reason) backend.reasons.set('r1', reason);
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
  flushSync();
  await vi.waitFor(() => {
    flushSync();
    expect(target.querySelector('[data-testid="reason"], [data-testid="reason-none"]')).not.toBeNull();
  });
  await settle({ rounds: 1 });
  return { target, backend };
}

describe('ReasonView', () => {
  it("shows the conversation's last messages as text, hidden characters marked, and says they are untrusted", async () => {
    const { target, backend } = await render({
      source: 'engine',
      earlier: true,
      unavailable: null,
      messages: [
        { role: 'user', text: 'delete <img src=x onerror=alert(1)> rec-1' },
        { role: 'assistant', text: 'Deleting it now\u202E.', cut: true },
      ],
    });
    expect(backend.reasonsAsked).toEqual(['r1']);
    const view = target.querySelector<HTMLElement>('[data-testid="reason"]')!;
    expect(view.dataset.source).toBe('engine');
    expect(view.textContent).toContain('untrusted');
    expect(view.textContent).toContain('Earlier messages are not shown');
    const messages = [...view.querySelectorAll<HTMLElement>('[data-testid="reason-message"]')];
    expect(messages.map((m) => m.dataset.role)).toEqual(['user', 'assistant']);
    expect(messages[0].textContent).toContain('<img src=x onerror=alert(1)>');
    expect(view.querySelector('img')).toBeNull();
    expect(messages[1].querySelector('[data-mark="hidden"]')!.textContent).toBe('\\u{202E}');
    expect(messages[1].textContent).toContain('…Deleting');
  });

  it('shows nothing for a call without a conversation, and says so when it cannot be read', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ id: 'r1' });
    backend.add(item);
    const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
    await vi.waitFor(() => expect(backend.reasonsAsked).toEqual(['r1']));
    await settle();
    expect(target.querySelector('[data-testid="reason"], [data-testid="reason-none"]')).toBeNull();

    const failing = new FakeBackend();
    failing.add(makeItem({ id: 'r2' }));
    failing.callReason = () => Promise.reject(new ApiError('storage_busy', 'the database is busy'));
    const other = mountInBody(Detail, { props: { item: makeItem({ id: 'r2' }), ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(failing) });
    await vi.waitFor(() => {
      flushSync();
      expect(other.target.querySelector('[data-testid="reason-none"]')!.textContent).toContain('the database is busy');
    });
  });
});
