import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import App from './App.svelte';
import { i18n } from './lib/i18n/index.svelte';
import { FakeBackend } from './lib/testing/fake-backend';
import { mountInBody, settle } from './lib/testing/mount';

describe('App', () => {
  afterEach(() => {
    i18n.set('system');
    localStorage.clear();
  });

  it("tells a backend that wants it (the desktop app) the language chosen, at start and on every change", async () => {
    const backend = new FakeBackend();
    const told: string[] = [];
    backend.setLanguage = async (choice) => {
      told.push(choice);
    };
    mountInBody(App, { props: { backend } });
    await settle();
    expect(told).toEqual(['system']);
    i18n.set('ja');
    flushSync();
    i18n.set('en');
    flushSync();
    expect(told).toEqual(['system', 'ja', 'en']);
  });

  it('keeps working when the backend refuses the language, and without such a call at all', async () => {
    const backend = new FakeBackend();
    backend.setLanguage = () => Promise.reject(new Error('no'));
    const { target } = mountInBody(App, { props: { backend } });
    await settle();
    expect(target.querySelector('[data-testid="queue-tab"]')).not.toBeNull();
    const plain = mountInBody(App, { props: { backend: new FakeBackend() } });
    await settle();
    expect(plain.target.querySelector('[data-testid="queue-tab"]')).not.toBeNull();
  });
});
