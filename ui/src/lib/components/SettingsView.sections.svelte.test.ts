// Settings in sections (issue 45): a nav lists them, each addressable by id (`section`, bound to the
// shell's link); one Save for everything the console keeps — channels and the remote listener
// included — with the sections that have unsaved changes marked; a test message per stored channel.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import SettingsView from './SettingsView.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

async function render(backend: FakeBackend, props: { refreshMs: number; section?: string | null } = { refreshMs: 60_000 }, principal = { name: 'me', role: 'admin' as const, kind: 'local' as const }) {
  const { target } = mountInBody(SettingsView, { props: props as never, context: backendContext(backend, principal) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const nav = () => [...target.querySelectorAll<HTMLElement>('[data-testid="settings-nav-item"]')];
  return { target, tid, nav };
}

describe('Settings sections', () => {
  it('lists every section in a nav, each with an id to link to, and jumps to the one chosen', async () => {
    const props = $state({ refreshMs: 60_000, section: null as string | null });
    const { target, nav } = await render(new FakeBackend(), props);
    expect(nav().map((b) => b.dataset.section)).toEqual(['notifications', 'approvals', 'time-limits', 'channels', 'remote-listener', 'policy', 'tokens', 'devices', 'desktop', 'appearance']);
    for (const b of nav()) expect(target.querySelector(`#settings-${b.dataset.section}`), b.dataset.section).not.toBeNull();
    nav().find((b) => b.dataset.section === 'tokens')!.click();
    await settle();
    expect(props.section).toBe('tokens');
    expect(nav().find((b) => b.getAttribute('aria-current') === 'true')!.dataset.section).toBe('tokens');
    // Its heading takes the focus (a keyboard or a screen reader lands in the section).
    expect(document.activeElement?.closest('#settings-tokens')).not.toBeNull();
    // A section named from outside (the link) is shown.
    props.section = 'channels';
    await settle();
    expect(nav().find((b) => b.getAttribute('aria-current') === 'true')!.dataset.section).toBe('channels');
  });

  it('a paired device is offered Appearance only', async () => {
    const backend = new FakeBackend();
    const { nav } = await render(backend, { refreshMs: 60_000 }, { name: 'phone', role: 'operator', kind: 'device' } as never);
    expect(nav().map((b) => b.dataset.section)).toEqual(['appearance']);
  });

  it('saves channels with the one Save, marking the sections with unsaved changes in the nav until then', async () => {
    const backend = new FakeBackend();
    backend.reach = { channels: [{ name: 'ops-hook', kind: 'webhook', person: 'alice', target: 'https://hooks.example/a', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: false, enabled: true }], rules: [], onCall: [] };
    backend.channelSecretsKept = { 'ops-hook': 'file' };
    const { target, tid, nav } = await render(backend);
    const dot = (id: string) => nav().find((b) => b.dataset.section === id)!.querySelector('.dot');
    expect(tid('settings-nav-save')).toBeNull();
    type(target.querySelector('[data-testid="reach-channel-person"]') as HTMLElement, 'bob');
    type(tid('notify-agents'), 'ops');
    flushSync();
    expect(dot('channels')).not.toBeNull();
    expect(dot('notifications')).not.toBeNull();
    expect(dot('time-limits')).toBeNull();
    expect(text(tid('settings-unsaved-where'))).toBe('in Notifications, Channels and escalation');
    // The Save is in the nav too, while anything waits for it.
    expect(tid('settings-nav-save')!.getAttribute('form')).toBe(tid('settings-form')!.id);
    tid('settings-save')!.click();
    await settle();
    expect(backend.reach.channels![0].person).toBe('bob');
    expect(backend.notifySettings.agents).toEqual(['ops']);
    expect(text(tid('settings-saved'))).toContain('Channels and escalation: 1 channel, 0 rules, 0 on-call shifts.');
    expect(dot('channels')).toBeNull();
    expect(tid('settings-nav-save')).toBeNull();
  });

  it('sends a test message on a stored channel, says what its server answered as text, and asks to save a changed one first', async () => {
    const backend = new FakeBackend();
    backend.reach = { channels: [{ name: 'ops-hook', kind: 'webhook', person: 'alice', target: 'https://hooks.example/a', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: false, enabled: false }], rules: [], onCall: [] };
    backend.channelSecretsKept = { 'ops-hook': 'file' };
    backend.channelTests = { 'ops-hook': { sent: false, error: 'answered HTTP 500 <b>boom</b>' } };
    const { target, tid } = await render(backend);
    const button = tid('reach-channel-test') as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    button.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'testChannel').map((c) => c.args)).toEqual([['ops-hook']]);
    const result = tid('reach-channel-test-result')!;
    expect(result.dataset.sent).toBe('false');
    expect(text(result)).toBe('The test message on ops-hook was not sent: answered HTTP 500 <b>boom</b>');
    expect(result.querySelector('b')).toBeNull();
    // Changed here: tested once saved, as the message goes as stored.
    type(target.querySelector('[data-testid="reach-channel-target"]') as HTMLElement, 'https://hooks.example/b');
    flushSync();
    expect((tid('reach-channel-test') as HTMLButtonElement).disabled).toBe(true);
    expect(text(tid('reach-channel-test-unsaved'))).toBe('Save the settings to test this channel as shown.');
    tid('settings-save')!.click();
    await settle();
    backend.channelTests = {};
    (tid('reach-channel-test') as HTMLButtonElement).click();
    await settle();
    expect(text(tid('reach-channel-test-result'))).toBe('Test message sent on ops-hook.');
  });

  it('offers no test message to an operator, who may not send on channels', async () => {
    const backend = new FakeBackend();
    backend.reach = { channels: [{ name: 'ops-hook', kind: 'webhook', person: 'alice', target: 'https://hooks.example/a', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: false, enabled: true }], rules: [], onCall: [] };
    backend.principal = { name: 'alice', role: 'operator', kind: 'token' };
    const { tid } = await render(backend, { refreshMs: 60_000 }, { name: 'alice', role: 'operator', kind: 'token' } as never);
    expect(tid('reach-channel')).not.toBeNull();
    expect(tid('reach-channel-test')).toBeNull();
  });
});
