import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { FakeBackend, makeEngine } from '../testing/fake-backend';
import { settle, type, check } from '../testing/mount';
import { renderEngines as render, everythingShown, SECRET } from '../testing/engines-view';

describe('EnginesView: editing an engine and its token', () => {
  it('edits URL, poll interval and token; the new token is never rendered after saving', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1', baseUrl: 'http://127.0.0.1:4111', pollMs: 1000 }));
    const { target, tid, card } = await render(backend);
    const c = card('r1')!;
    tid('engine-edit', c)!.click();
    await settle();
    const form = tid('engine-edit-form', c)!;
    expect(document.activeElement).toBe(tid('engine-edit-url', form));
    expect((tid('engine-edit-url', form) as HTMLInputElement).value).toBe('http://127.0.0.1:4111');
    expect((tid('engine-edit-token', form) as HTMLInputElement).type).toBe('password');
    // No token stored yet: nothing to forget.
    expect(tid('engine-edit-forget', form)).toBeNull();

    type(tid('engine-edit-url', form), 'http://127.0.0.1:4222');
    type(tid('engine-edit-poll', form), '2000');
    type(tid('engine-edit-token', form), SECRET);
    tid('engine-edit-save', form)!.click();
    await settle();

    expect(backend.calls.filter((c) => c.method === 'editEngine')).toEqual([
      { method: 'editEngine', args: ['r1', { baseUrl: 'http://127.0.0.1:4222', pollMs: 2000, token: SECRET }] },
    ]);
    expect(tid('engine-edit-form', c)).toBeNull();
    expect(tid('engine-url', c)!.textContent).toBe('http://127.0.0.1:4222');
    expect(tid('engine-poll', c)!.textContent).toBe('2000 ms');
    expect(tid('engine-token', c)!.textContent).toBe('token stored');
    expect(document.activeElement).toBe(tid('engine-edit', c));
    expect(everythingShown(target)).not.toContain(SECRET);

    // Opening the form again starts with an empty token field.
    tid('engine-edit', c)!.click();
    await settle();
    expect((tid('engine-edit-token', c) as HTMLInputElement).value).toBe('');
  });

  it('a new URL asks for the token again, or the tick to keep the stored one, and says why', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1', hasToken: true }));
    const { target, tid, card } = await render(backend);
    const c = card('r1')!;
    tid('engine-edit', c)!.click();
    await settle();
    const form = tid('engine-edit-form', c)!;
    // The same URL: nothing to ask.
    expect(tid('engine-edit-token-ask', form)).toBeNull();
    type(tid('engine-edit-url', form), 'https://elsewhere.example.com');
    flushSync();
    const ask = tid('engine-edit-token-ask', form)!;
    expect(ask.textContent).toContain('A token must not follow an address to another host by accident.');
    expect(tid('engine-edit-token', form)!.getAttribute('aria-describedby')).toBe(ask.id);
    expect(form.textContent).toContain('(needed for the new address, unless you keep the stored one)');
    const keep = tid('engine-edit-keep-token', form) as HTMLInputElement;
    expect(target.querySelector(`label[for="${keep.id}"]`)!.textContent).toBe('Keep the stored token for the new address');

    // Neither: nothing is sent, and the form says what it needs.
    tid('engine-edit-save', form)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'editEngine')).toEqual([]);
    expect(tid('engine-edit-token-missing', form)!.getAttribute('role')).toBe('alert');
    expect(document.activeElement).toBe(tid('engine-edit-token', form));
    expect(tid('engine-edit-token', form)!.getAttribute('aria-invalid')).toBe('true');

    // The tick: keepToken, and no token.
    check(keep, true);
    flushSync();
    expect(tid('engine-edit-token-missing', form)).toBeNull();
    tid('engine-edit-save', form)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'editEngine').map((c) => c.args)).toEqual([['r1', { baseUrl: 'https://elsewhere.example.com', keepToken: true }]]);
    expect(tid('engine-url', c)!.textContent).toBe('https://elsewhere.example.com');
  });

  it('a new URL with a new token sends the token and no keepToken; forgetting the token asks nothing', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1', hasToken: true }), makeEngine({ name: 'r2', hasToken: true }));
    const { tid, card } = await render(backend);
    const c1 = card('r1')!;
    tid('engine-edit', c1)!.click();
    await settle();
    type(tid('engine-edit-url', c1), 'https://a.example.com');
    flushSync();
    check(tid('engine-edit-keep-token', c1), true);
    type(tid('engine-edit-token', c1), SECRET);
    flushSync();
    // A token typed: the tick is not offered (nor sent).
    expect(tid('engine-edit-keep-token', c1)).toBeNull();
    tid('engine-edit-save', c1)!.click();
    await settle();
    const c2 = card('r2')!;
    tid('engine-edit', c2)!.click();
    await settle();
    type(tid('engine-edit-url', c2), 'https://b.example.com');
    check(tid('engine-edit-forget', c2), true);
    flushSync();
    expect(tid('engine-edit-token-ask', c2)).toBeNull();
    tid('engine-edit-save', c2)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'editEngine').map((c) => c.args)).toEqual([
      ['r1', { baseUrl: 'https://a.example.com', token: SECRET }],
      ['r2', { baseUrl: 'https://b.example.com', clearToken: true }],
    ]);
  });

  it('shows token_required in words when the server asks for the token after all, and then offers the tick', async () => {
    const backend = new FakeBackend();
    // The card was listed before a token was stored elsewhere (the CLI): it knows of none.
    backend.addEngines(makeEngine({ name: 'r1', hasToken: false }));
    const { tid, card } = await render(backend);
    backend.engines.set('r1', { ...backend.engines.get('r1')!, hasToken: true });
    const c = card('r1')!;
    tid('engine-edit', c)!.click();
    await settle();
    type(tid('engine-edit-url', c), 'https://elsewhere.example.com');
    flushSync();
    expect(tid('engine-edit-token-ask', c)).toBeNull();
    tid('engine-edit-save', c)!.click();
    await settle();
    const err = tid('engine-edit-error', c)!;
    expect(err.dataset.code).toBe('token_required');
    expect(err.querySelector('strong')!.textContent).toBe(
      "The engine's address changes: enter its token again, or choose to keep the stored token for the new address. Nothing was changed.",
    );
    expect(err.textContent).toContain('the URL of engine r1 changes');
    expect(tid('engine-edit-token-ask', c)).not.toBeNull();
    expect(document.activeElement).toBe(tid('engine-edit-token', c));
    check(tid('engine-edit-keep-token', c), true);
    tid('engine-edit-save', c)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'editEngine').at(-1)!.args).toEqual(['r1', { baseUrl: 'https://elsewhere.example.com', keepToken: true }]);
    expect(tid('engine-edit-form', c)).toBeNull();
  });

  it('forget token sends clearToken and nothing else that did not change', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1', hasToken: true }));
    const { tid, card } = await render(backend);
    const c = card('r1')!;
    tid('engine-edit', c)!.click();
    await settle();
    check(tid('engine-edit-forget', c), true);
    flushSync();
    expect((tid('engine-edit-token', c) as HTMLInputElement).disabled).toBe(true);
    tid('engine-edit-save', c)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'editEngine')).toEqual([{ method: 'editEngine', args: ['r1', { clearToken: true }] }]);
    expect(tid('engine-token', c)!.textContent).toBe('no token');
  });

  it('shows a refused edit by code and keeps the form open', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1' }));
    const { target, tid, card } = await render(backend);
    const c = card('r1')!;
    tid('engine-edit', c)!.click();
    await settle();
    type(tid('engine-edit-token', c), SECRET);
    backend.failNext = new ApiError('keyring_locked', 'the keyring is locked');
    tid('engine-edit-save', c)!.click();
    await settle();
    expect(tid('engine-edit-error', c)!.dataset.code).toBe('keyring_locked');
    expect(tid('engine-edit-error', c)!.textContent).toContain('the keyring is locked');
    expect(tid('engine-edit-form', c)).not.toBeNull();
    // Cancel drops the typed token.
    tid('engine-edit-cancel', c)!.click();
    await settle();
    expect(everythingShown(target)).not.toContain(SECRET);
  });

  it('offers "this session only" after the keyring refuses a new token, and sends sessionOnly when chosen', async () => {
    const backend = new FakeBackend();
    backend.keyring = 'unavailable';
    const { target, tid, card } = await render(backend);
    // Not offered before the keyring said no.
    expect(tid('add-engine-session-only')).toBeNull();
    expect(target.textContent).not.toContain('this session only');

    type(tid('add-engine-name'), 'remote-1');
    type(tid('add-engine-url'), 'http://127.0.0.1:4111');
    type(tid('add-engine-token'), SECRET);
    tid('add-engine-submit')!.click();
    await settle();

    expect(tid('add-engine-error')!.dataset.code).toBe('keyring_unavailable');
    expect(card('remote-1')).toBeNull();
    // The typed token is kept, and the choice is offered next to the error: a labelled, unchecked checkbox.
    expect((tid('add-engine-token') as HTMLInputElement).value).toBe(SECRET);
    const box = tid('add-engine-session-only') as HTMLInputElement;
    expect(box.type).toBe('checkbox');
    expect(box.checked).toBe(false);
    expect(box.disabled).toBe(false);
    expect(box.tabIndex).toBe(0);
    expect(box.labels![0].textContent).toBe('Keep this token for this session only (not stored; you will be asked again after a restart)');

    // Saving again without choosing it tries the keyring again.
    tid('add-engine-submit')!.click();
    await settle();
    expect(tid('add-engine-error')!.dataset.code).toBe('keyring_unavailable');
    expect(tid('add-engine-session-only')).not.toBeNull();

    check(tid('add-engine-session-only'), true);
    tid('add-engine-submit')!.click();
    await settle();

    expect(backend.calls.filter((c) => c.method === 'addEngine').map((c) => c.args[0])).toEqual([
      { name: 'remote-1', kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', token: SECRET, pollMs: 1000 },
      { name: 'remote-1', kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', token: SECRET, pollMs: 1000 },
      { name: 'remote-1', kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', token: SECRET, pollMs: 1000, sessionOnly: true },
    ]);
    const added = card('remote-1')!;
    expect(tid('engine-token', added)!.textContent).toBe('token for this session only');
    expect(tid('add-engine-error')).toBeNull();
    // The form starts over: no error, no offer, no token anywhere.
    expect(tid('add-engine-session-only')).toBeNull();
    expect(everythingShown(target)).not.toContain(SECRET);
  });

  it('does not offer "this session only" after other refusals, nor send sessionOnly without a token', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'taken' }));
    const { tid } = await render(backend);
    type(tid('add-engine-name'), 'taken');
    type(tid('add-engine-url'), 'http://127.0.0.1:4111');
    type(tid('add-engine-token'), SECRET);
    tid('add-engine-submit')!.click();
    await settle();
    expect(tid('add-engine-error')!.dataset.code).toBe('invalid_request');
    expect(tid('add-engine-session-only')).toBeNull();

    // A keyring refusal, then the token is emptied: the checkbox means nothing without one.
    backend.keyring = 'locked';
    type(tid('add-engine-name'), 'fresh');
    tid('add-engine-submit')!.click();
    await settle();
    expect(tid('add-engine-error')!.dataset.code).toBe('keyring_locked');
    check(tid('add-engine-session-only'), true);
    type(tid('add-engine-token'), '');
    tid('add-engine-submit')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'addEngine').at(-1)!.args[0]).toEqual({ name: 'fresh', kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', pollMs: 1000 });
  });

  it('edit: offers "this session only" after the keyring is locked, sends sessionOnly, shows the badge', async () => {
    const backend = new FakeBackend();
    backend.keyring = 'locked';
    backend.addEngines(makeEngine({ name: 'r1' }));
    const { target, tid, card } = await render(backend);
    const c = card('r1')!;
    tid('engine-edit', c)!.click();
    await settle();
    expect(tid('engine-edit-session-only', c)).toBeNull();
    type(tid('engine-edit-token', c), SECRET);
    tid('engine-edit-save', c)!.click();
    await settle();

    expect(tid('engine-edit-error', c)!.dataset.code).toBe('keyring_locked');
    expect((tid('engine-edit-token', c) as HTMLInputElement).value).toBe(SECRET);
    const box = tid('engine-edit-session-only', c) as HTMLInputElement;
    expect(box.checked).toBe(false);
    expect(box.labels![0].textContent).toBe('Keep this token for this session only (not stored; you will be asked again after a restart)');
    check(box, true);
    tid('engine-edit-save', c)!.click();
    await settle();

    expect(backend.calls.filter((c) => c.method === 'editEngine')).toEqual([
      { method: 'editEngine', args: ['r1', { token: SECRET }] },
      { method: 'editEngine', args: ['r1', { token: SECRET, sessionOnly: true }] },
    ]);
    expect(tid('engine-edit-form', c)).toBeNull();
    expect(tid('engine-token', c)!.textContent).toBe('token for this session only');
    expect(document.activeElement).toBe(tid('engine-edit', c));
    expect(everythingShown(target)).not.toContain(SECRET);

    // Opening the form again: no offer until the keyring refuses again.
    tid('engine-edit', c)!.click();
    await settle();
    expect(tid('engine-edit-session-only', c)).toBeNull();
  });

  it('a session token lost in a restart: "Enter token again" opens the edit form at the token field', async () => {
    const backend = new FakeBackend();
    const lost = 'this engine\'s token was kept for one session only (the keyring could not hold it): enter it again';
    backend.addEngines(
      makeEngine({ name: 'lost', hasToken: true, sessionToken: true, health: { state: 'auth_failed', lastError: lost, lastErrorAt: null, lastOkAt: null } }),
      makeEngine({ name: 'live', hasToken: true, sessionToken: true, health: { state: 'reachable', lastError: null, lastErrorAt: null, lastOkAt: '2025-01-01T09:30:00Z' } }),
      makeEngine({ name: 'denied', hasToken: true, health: { state: 'auth_failed', lastError: 'HTTP 401', lastErrorAt: null, lastOkAt: null } }),
    );
    const { target, tid, card } = await render(backend);
    expect(tid('engine-token', card('live')!)!.textContent).toBe('token for this session only');
    expect(tid('engine-reenter-token', card('live')!)).toBeNull();
    expect(tid('engine-token', card('denied')!)!.textContent).toBe('token stored');
    expect(tid('engine-reenter-token', card('denied')!)).toBeNull();

    const c = card('lost')!;
    expect(tid('engine-token', c)!.textContent).toBe('token for this session only');
    expect(tid('engine-last-error', c)!.textContent).toBe(lost);
    const again = tid('engine-reenter-token', c) as HTMLButtonElement;
    expect(again.tagName).toBe('BUTTON');
    expect(again.textContent).toBe('Enter token again');
    expect(document.getElementById(again.getAttribute('aria-describedby')!)!.textContent).toBe(lost);
    again.click();
    await settle();
    const form = tid('engine-edit-form', c)!;
    expect(again.getAttribute('aria-controls')).toBe(form.id);
    expect(document.activeElement).toBe(tid('engine-edit-token', form));
    expect(form.textContent).toContain('enter it again');

    // The keyring still cannot hold it: the offer appears, and the token goes in for this session.
    backend.keyring = 'unavailable';
    type(tid('engine-edit-token', form), SECRET);
    tid('engine-edit-save', form)!.click();
    await settle();
    expect(tid('engine-edit-error', c)!.dataset.code).toBe('keyring_unavailable');
    check(tid('engine-edit-session-only', c), true);
    tid('engine-edit-save', c)!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'editEngine').at(-1)!.args).toEqual(['lost', { token: SECRET, sessionOnly: true }]);
    expect(tid('engine-edit-form', c)).toBeNull();
    expect(everythingShown(target)).not.toContain(SECRET);
  });
});
