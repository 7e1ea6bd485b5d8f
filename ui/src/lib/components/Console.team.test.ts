// The Team tab: its view (and Chart.js with it) is loaded the first time the tab is shown, "Loading…"
// meanwhile; a load that fails is said in words and tried again when the tab is shown again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backendContext } from '../backend/context';
import { NotifyWarning } from '../notify-warning.svelte';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Console from './Console.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

async function render(backend: FakeBackend) {
  const { target } = mountInBody(Console, { props: { notifyWarning: new NotifyWarning() }, context: backendContext(backend) });
  await settle();
  return (sel: string) => target.querySelector(sel) as HTMLElement | null;
}

beforeEach(() => {
  // jsdom's canvas has no context (and says so on the console each time it is asked).
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

afterEach(() => {
  vi.doUnmock('./TeamView.svelte');
  vi.restoreAllMocks();
});

describe('the Team tab', () => {
  it('loads its view when first shown, and asks for the figures only then', async () => {
    const backend = new FakeBackend();
    const q = await render(backend);
    expect(backend.calls.some((c) => c.method === 'stats')).toBe(false);
    const tab = q('[data-testid="team-tab"]')!;
    expect(tab.getAttribute('aria-controls')).toBe('panel-team');
    tab.click();
    await vi.waitFor(() => expect(q('#panel-team [data-testid="team-view"]')).not.toBeNull());
    await settle();
    expect(tab.getAttribute('aria-selected')).toBe('true');
    expect(q('#panel-team')!.getAttribute('aria-labelledby')).toBe('tab-team');
    expect(backend.calls.filter((c) => c.method === 'stats').map((c) => c.args)).toEqual([[7]]);
    expect(text(q('[data-testid="team-decided"]'))).toBe('18');
  });

  it('says in words when the view cannot be loaded, and tries again when the tab is shown again', async () => {
    vi.doMock('./TeamView.svelte', () => {
      throw new Error('Failed to fetch dynamically imported module');
    });
    const backend = new FakeBackend();
    const q = await render(backend);
    q('[data-testid="team-tab"]')!.click();
    await vi.waitFor(() => expect(q('[data-testid="team-view-load-error"]')).not.toBeNull());
    const err = q('[data-testid="team-view-load-error"]')!;
    expect(err.getAttribute('role')).toBe('alert');
    expect(text(err.querySelector('strong'))).toBe('The console server cannot be reached.');
    expect(text(q('[data-testid="team-view-load-error-message"]'))).not.toBe('');
    expect(q('[data-testid="team-view"]')).toBeNull();

    vi.doUnmock('./TeamView.svelte');
    q('[data-testid="queue-tab"]')!.click();
    await settle();
    q('[data-testid="team-tab"]')!.click();
    await vi.waitFor(() => expect(q('#panel-team [data-testid="team-view"]')).not.toBeNull());
    expect(q('[data-testid="team-view-load-error"]')).toBeNull();
  });
});
