// Settings → Tokens (issue 25): an admin lists, makes and revokes credentials in the console; the new
// token is shown once (with Copy) and never again; refusals are shown as the server said them; an
// operator sees no Tokens section at all (the server refuses it the list too).
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import SettingsView from './SettingsView.svelte';

async function render(backend: FakeBackend, role: 'admin' | 'operator' = 'admin') {
  const principal = role === 'admin' ? { name: 'me', role, kind: 'local' as const } : { name: 'alice', role, kind: 'token' as const };
  const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, principal) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll(`[data-testid="${id}"]`)] as HTMLElement[];
  return { target, tid, all };
}

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function select(el: HTMLElement | null, value: string) {
  (el as HTMLSelectElement).value = value;
  el!.dispatchEvent(new Event('change', { bubbles: true }));
}

describe('Settings: tokens', () => {
  it('makes a token with its role and claims, shows it once with Copy, and lists it without it', async () => {
    const backend = new FakeBackend();
    const { tid, all } = await render(backend);
    expect(tid('tokens-none')).not.toBeNull();
    expect((tid('token-make') as HTMLButtonElement).disabled).toBe(true);
    type(tid('token-name'), ' claude-code ');
    select(tid('token-role'), 'agent');
    type(tid('token-agents'), 'claude-code, ops-bot ,');
    type(tid('token-sources'), 'claude-code');
    flushSync();
    tid('token-make')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'addToken')).toEqual([
      { method: 'addToken', args: [{ name: 'claude-code', role: 'agent', person: null, agents: ['claude-code', 'ops-bot'], sources: ['claude-code'] }] },
    ]);
    const secret = text(tid('token-made-secret'));
    expect(secret).toMatch(/^ac_[0-9]{64}$/);
    expect(text(tid('token-made'))).toContain('Token claude-code (agent) made');
    expect(text(tid('token-made'))).toContain('shown only this once');
    expect(tid('token-copy')).not.toBeNull();
    expect(document.activeElement).toBe(tid('token-made'));
    // Listed, with what it may claim, and the form is empty again for the next one.
    expect(all('token-row').map((r) => r.dataset.name)).toEqual(['claude-code']);
    expect(text(all('token-row')[0])).toContain('agents claude-code, ops-bot; from claude-code');
    expect(text(tid('tokens-list'))).not.toContain(secret);
    expect((tid('token-name') as HTMLInputElement).value).toBe('');
    // Done: the token is gone from the page for good.
    tid('token-made-done')!.click();
    flushSync();
    expect(tid('token-made')).toBeNull();
    expect(document.body.textContent).not.toContain(secret);
  });

  it("shows the server's refusal and keeps what was typed", async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend);
    type(tid('token-name'), 'ci');
    flushSync();
    tid('token-make')!.click();
    await settle();
    tid('token-made-done')!.click();
    type(tid('token-name'), 'ci');
    select(tid('token-role'), 'operator');
    flushSync();
    tid('token-make')!.click();
    await settle();
    expect(tid('token-make-error')?.dataset.code).toBe('invalid_request');
    expect(text(tid('token-make-error'))).toContain('a credential named "ci" exists');
    expect(tid('token-made')).toBeNull();
    expect((tid('token-name') as HTMLInputElement).value).toBe('ci');
    expect((tid('token-role') as HTMLSelectElement).value).toBe('operator');
  });

  it('revokes only after a confirm, and says so', async () => {
    const backend = new FakeBackend();
    await backend.addToken({ name: 'alice', role: 'operator' });
    await backend.addToken({ name: 'bot', role: 'agent' });
    const { tid, all } = await render(backend);
    expect(all('token-row').map((r) => r.dataset.name)).toEqual(['alice', 'bot']);
    (all('token-row')[1].querySelector('[data-testid="token-revoke"]') as HTMLElement).click();
    flushSync();
    expect(backend.calls.some((c) => c.method === 'revokeToken')).toBe(false);
    tid('token-revoke-cancel')!.click();
    flushSync();
    expect(tid('token-revoke-confirm')).toBeNull();
    (all('token-row')[1].querySelector('[data-testid="token-revoke"]') as HTMLElement).click();
    flushSync();
    expect(text(tid('token-revoke-confirm'))).toBe('Revoke bot now');
    tid('token-revoke-confirm')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'revokeToken')).toEqual([{ method: 'revokeToken', args: ['bot'] }]);
    expect(all('token-row').map((r) => r.dataset.name)).toEqual(['alice']);
    expect(text(tid('token-revoked'))).toBe('Revoked bot: its token no longer works.');
  });

  it('shows a failed revoke and lists what the server has', async () => {
    const backend = new FakeBackend();
    await backend.addToken({ name: 'bot', role: 'agent' });
    const { tid, all } = await render(backend);
    backend.failToken = new ApiError('internal', 'the database is locked', null, 500);
    tid('token-revoke')!.click();
    flushSync();
    tid('token-revoke-confirm')!.click();
    await settle();
    expect(text(tid('token-revoke-error'))).toContain('the database is locked');
    expect(all('token-row').map((r) => r.dataset.name)).toEqual(['bot']);
    expect(text(tid('token-revoked'))).toBe('');
  });

  it('is not offered to an operator, who is not asked for the list', async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend, 'operator');
    expect(tid('settings-view')).not.toBeNull();
    expect(tid('token-settings')).toBeNull();
    expect(backend.calls.some((c) => c.method === 'listTokens')).toBe(false);
  });
});
