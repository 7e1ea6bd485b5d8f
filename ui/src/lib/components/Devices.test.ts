// Settings → Devices (issue 28): an admin lists the paired phones, renames and revokes them (revoke
// after a confirm), and pairs a phone: the code, link and certificate pin shown once, the QR code only
// as an image (its SVG text is never inserted as markup); a refusal (the remote listener off) is shown
// as the server said it; an operator sees no Devices section at all.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeDevice } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import { formatDateTime } from '../time';
import SettingsView from './SettingsView.svelte';

async function render(backend: FakeBackend, role: 'admin' | 'operator' = 'admin') {
  const principal = role === 'admin' ? { name: 'me', role, kind: 'local' as const } : { name: 'alice', role, kind: 'token' as const };
  const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, principal) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll(`[data-testid="${id}"]`)] as HTMLElement[];
  const row = (name: string) => target.querySelector(`[data-testid="device-row"][data-name="${name}"]`) as HTMLElement | null;
  const inRow = (name: string, id: string) => row(name)?.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, tid, all, row, inRow };
}

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The text a `data:…;base64,` URL carries. */
function fromDataUrl(src: string): string {
  const [head, data] = src.split(',', 2);
  expect(head).toBe('data:image/svg+xml;base64');
  return new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
}

function devices(backend: FakeBackend) {
  backend.devices = [
    makeDevice({ id: 'd1', name: 'alice-phone-1', person: 'alice', lastUsedAt: '2025-01-02T09:30:00Z', sessions: 2 }),
    makeDevice({ id: 'd2', name: 'bob-pixel', person: 'bob', createdAt: '2025-01-03T08:00:00Z', lastUsedAt: null, sessions: 0 }),
  ];
}

describe('Settings: devices', () => {
  it('lists the devices: name, person, paired, last used (or never) and sessions', async () => {
    const backend = new FakeBackend();
    devices(backend);
    const { tid, all, row } = await render(backend);
    expect(tid('devices-settings')).not.toBeNull();
    expect(all('device-row').map((r) => r.dataset.name)).toEqual(['alice-phone-1', 'bob-pixel']);
    const cells = (name: string) => [...row(name)!.querySelectorAll('td')].slice(0, 5).map(text);
    expect(cells('alice-phone-1')).toEqual(['alice-phone-1', 'alice', formatDateTime('2025-01-01T10:00:00Z'), formatDateTime('2025-01-02T09:30:00Z'), '2']);
    expect(cells('bob-pixel')).toEqual(['bob-pixel', 'bob', formatDateTime('2025-01-03T08:00:00Z'), 'never', '0']);
  });

  it('says when there is none', async () => {
    const { tid } = await render(new FakeBackend());
    expect(text(tid('devices-none'))).toBe('No paired devices.');
  });

  it('pairs a phone: shows the code, link (with Copy), pin and expiry, and the QR code only as an image', async () => {
    const backend = new FakeBackend();
    // Untrusted text: were it inserted as markup, its <svg> and <script> would be in the page.
    backend.pairingQr = '<svg xmlns="http://www.w3.org/2000/svg" data-evil="1"><script>window.__pwned = true</script><rect width="1" height="1"/></svg>';
    const { target, tid, all } = await render(backend);
    expect(tid('pairing-result')).toBeNull();
    type(tid('pair-name'), ' my-pixel ');
    flushSync();
    tid('pair-phone')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'startPairing')).toEqual([{ method: 'startPairing', args: [{ name: 'my-pixel' }] }]);
    const result = tid('pairing-result')!;
    expect(result).not.toBeNull();
    expect(document.activeElement).toBe(result);
    expect(text(result)).toContain('Pairing my-pixel for me');
    expect(text(tid('pairing-code'))).toBe('ABCDE-FGHJK');
    expect(text(tid('pairing-url'))).toBe('https://console.example:8443/#pair=ABCDE-FGHJK');
    expect(tid('pairing-url-copy')).not.toBeNull();
    expect(text(tid('pairing-pin'))).toBe('q1w2e3r4t5y6u7i8o9p0AbCdEfGhIjKlMnOpQrStUvW=');
    expect(text(tid('pairing-expires'))).toBe(formatDateTime('2025-01-01T10:10:00Z'));

    const qr = tid('pairing-qr') as HTMLImageElement;
    expect(qr.tagName).toBe('IMG');
    expect(qr.alt).toBe('QR code of the link that pairs my-pixel');
    expect(qr.getAttribute('src')!.startsWith('data:image/svg+xml;base64,')).toBe(true);
    expect(fromDataUrl(qr.getAttribute('src')!)).toBe(backend.pairingQr);
    // Nothing of the SVG text became markup.
    expect(target.querySelector('svg')).toBeNull();
    expect(target.querySelector('script')).toBeNull();
    expect(document.querySelector('[data-evil]')).toBeNull();
    expect((window as unknown as { __pwned?: boolean }).__pwned).toBeUndefined();
    expect(result.innerHTML).not.toContain('<script');
    expect((tid('pair-name') as HTMLInputElement).value).toBe('');

    // Done: gone for good, and the list asked for again (the phone may have paired since).
    const lists = backend.calls.filter((c) => c.method === 'listDevices').length;
    tid('pairing-done')!.click();
    await settle();
    expect(tid('pairing-result')).toBeNull();
    expect(document.body.textContent).not.toContain('ABCDE-FGHJK');
    expect(backend.calls.filter((c) => c.method === 'listDevices').length).toBe(lists + 1);
    expect(all('device-row')).toEqual([]);
  });

  it('pairs with no name (the server names it), and shows the server\'s refusal while the listener is off', async () => {
    const backend = new FakeBackend();
    backend.listening = false;
    const { tid } = await render(backend);
    tid('pair-phone')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'startPairing')).toEqual([{ method: 'startPairing', args: [{ name: null }] }]);
    expect(tid('pair-error')?.dataset.code).toBe('invalid_request');
    expect(text(tid('pair-error-message'))).toBe('the remote listener is off: start it with `approval-console serve --listen ADDR:PORT --public-name NAME`, then pair');
    expect(tid('pairing-result')).toBeNull();

    backend.listening = true;
    tid('pair-phone')!.click();
    await settle();
    expect(tid('pair-error')).toBeNull();
    expect(text(tid('pairing-result'))).toContain('Pairing me-phone-1 for me');
  });

  it('renames a device inline, then lists it again', async () => {
    const backend = new FakeBackend();
    devices(backend);
    const { tid, all, inRow } = await render(backend);
    inRow('bob-pixel', 'device-rename')!.click();
    await settle();
    const input = inRow('bob-pixel', 'device-rename-input') as HTMLInputElement;
    expect(input.value).toBe('bob-pixel');
    expect(inRow('bob-pixel', 'device-revoke')).toBeNull();
    // Cancel leaves it as it was.
    inRow('bob-pixel', 'device-rename-cancel')!.click();
    flushSync();
    expect(inRow('bob-pixel', 'device-rename-input')).toBeNull();
    expect(backend.calls.some((c) => c.method === 'renameDevice')).toBe(false);

    inRow('bob-pixel', 'device-rename')!.click();
    await settle();
    type(inRow('bob-pixel', 'device-rename-input'), ' bob-phone ');
    flushSync();
    const lists = backend.calls.filter((c) => c.method === 'listDevices').length;
    inRow('bob-pixel', 'device-rename-save')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'renameDevice')).toEqual([{ method: 'renameDevice', args: ['bob-pixel', 'bob-phone'] }]);
    expect(backend.calls.filter((c) => c.method === 'listDevices').length).toBe(lists + 1);
    expect(all('device-row').map((r) => r.dataset.name)).toEqual(['alice-phone-1', 'bob-phone']);
    expect(tid('device-rename-input')).toBeNull();
    expect(text(tid('device-done'))).toBe('Renamed bob-pixel to bob-phone.');
  });

  it('keeps the rename open with what was typed when the server refuses it', async () => {
    const backend = new FakeBackend();
    devices(backend);
    const { all, inRow } = await render(backend);
    inRow('bob-pixel', 'device-rename')!.click();
    await settle();
    type(inRow('bob-pixel', 'device-rename-input'), 'alice-phone-1');
    flushSync();
    inRow('bob-pixel', 'device-rename-save')!.click();
    await settle();
    expect(inRow('bob-pixel', 'device-rename-error')?.dataset.code).toBe('invalid_request');
    expect(text(inRow('bob-pixel', 'device-rename-error'))).toContain('a device is named "alice-phone-1" already');
    expect((inRow('bob-pixel', 'device-rename-input') as HTMLInputElement).value).toBe('alice-phone-1');
    expect(all('device-row').map((r) => r.dataset.name)).toEqual(['alice-phone-1', 'bob-pixel']);
  });

  it('revokes only after a confirm, and says how many sessions ended', async () => {
    const backend = new FakeBackend();
    devices(backend);
    const { tid, all, inRow } = await render(backend);
    inRow('alice-phone-1', 'device-revoke')!.click();
    flushSync();
    expect(backend.calls.some((c) => c.method === 'revokeDevice')).toBe(false);
    inRow('alice-phone-1', 'device-revoke-cancel')!.click();
    flushSync();
    expect(tid('device-confirm-revoke')).toBeNull();
    inRow('alice-phone-1', 'device-revoke')!.click();
    flushSync();
    expect(text(tid('device-confirm-revoke'))).toBe('Revoke alice-phone-1 now');
    tid('device-confirm-revoke')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'revokeDevice')).toEqual([{ method: 'revokeDevice', args: ['alice-phone-1'] }]);
    expect(all('device-row').map((r) => r.dataset.name)).toEqual(['bob-pixel']);
    expect(text(tid('device-done'))).toBe('Revoked alice-phone-1; 2 session(s) ended.');
  });

  it('shows a failed revoke and lists what the server has', async () => {
    const backend = new FakeBackend();
    devices(backend);
    const { tid, all, inRow } = await render(backend);
    backend.failDevice = new ApiError('internal', 'the database is locked', null, 500);
    inRow('bob-pixel', 'device-revoke')!.click();
    flushSync();
    tid('device-confirm-revoke')!.click();
    await settle();
    expect(text(tid('device-revoke-error'))).toContain('the database is locked');
    expect(all('device-row').map((r) => r.dataset.name)).toEqual(['alice-phone-1', 'bob-pixel']);
    expect(text(tid('device-done'))).toBe('');
  });

  it('is not offered to an operator, who is not asked for the list', async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend, 'operator');
    expect(tid('settings-view')).not.toBeNull();
    expect(tid('devices-settings')).toBeNull();
    expect(backend.calls.some((c) => c.method === 'listDevices')).toBe(false);
  });
});
