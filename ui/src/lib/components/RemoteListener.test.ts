// Settings → Devices → Remote listener (issue 28): shown running with its pin; an address that is
// not ADDR:PORT is refused as the server says it; emptying it turns the listener off at the next start.
import { describe, expect, it } from 'vitest';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import RemoteListener from './RemoteListener.svelte';

describe('Settings → Devices → Remote listener', () => {
  it('shows the listener running, saves the address and name, and shows a refusal as the server said it', async () => {
    const backend = new FakeBackend();
    backend.remote = { settings: { listen: '0.0.0.0:8443', publicName: 'c.example.com' }, running: 'https://c.example.com:8443', pin: 'PIN=' };
    const { target } = mountInBody(RemoteListener, { props: {}, context: backendContext(backend, { name: 'me', role: 'admin', kind: 'local' }) });
    await settle();
    const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLInputElement;
    expect(q('remote-listener-running').textContent).toContain('https://c.example.com:8443');
    expect(q('remote-listen').value).toBe('0.0.0.0:8443');
    type(q('remote-listen'), 'not an address');
    (q('remote-listener') as unknown as HTMLFormElement).requestSubmit();
    await settle();
    expect(q('remote-listener-error').textContent).toContain('not ADDR:PORT');
    expect(backend.remote.settings.listen).toBe('0.0.0.0:8443');
    type(q('remote-listen'), '');
    (q('remote-listener') as unknown as HTMLFormElement).requestSubmit();
    await settle();
    expect(backend.remote.settings).toEqual({ listen: null, publicName: 'c.example.com' });
    expect(q('remote-listener-saved')).not.toBeNull();
  });
});
