// Settings → Remote listener (issue 28): shown running with its pin; an address that is not
// ADDR:PORT is refused as the server says it; emptying it turns the listener off at the next start.
// Saved with the settings' one Save (issue 45), like every setting the console keeps.
import { describe, expect, it } from 'vitest';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import SettingsView from './SettingsView.svelte';

describe('Settings → Remote listener', () => {
  it('shows the listener running, saves the address and name, and shows a refusal as the server said it', async () => {
    const backend = new FakeBackend();
    backend.remote = { settings: { listen: '0.0.0.0:8443', publicName: 'c.example.com' }, running: 'https://c.example.com:8443', pin: 'PIN=' };
    const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, { name: 'me', role: 'admin', kind: 'local' }) });
    await settle();
    const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLInputElement;
    const save = async () => {
      q('settings-save').click();
      await settle();
    };
    expect(q('remote-listener-running').textContent).toContain('https://c.example.com:8443');
    expect(q('remote-listen').value).toBe('0.0.0.0:8443');
    // Not changed: the Save sends nothing of it.
    await save();
    expect(backend.calls.filter((c) => c.method === 'saveRemoteSettings')).toEqual([]);
    type(q('remote-listen'), 'not an address');
    await settle();
    expect(target.querySelector('[data-testid="settings-nav-item"][data-section="remote-listener"] .dot')).not.toBeNull();
    await save();
    expect(q('remote-listener-error').textContent).toContain('not ADDR:PORT');
    expect(backend.remote.settings.listen).toBe('0.0.0.0:8443');
    type(q('remote-listen'), '');
    await save();
    expect(backend.remote.settings).toEqual({ listen: null, publicName: 'c.example.com' });
    expect(q('remote-listener-saved')).not.toBeNull();
    expect(q('settings-saved').textContent).toContain('Remote listener: applied at the next start.');
  });
});
