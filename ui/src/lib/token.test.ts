import { describe, expect, it } from 'vitest';
import { parseTokenInput, TokenStore } from './token.svelte';

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, v),
  };
}

describe('TokenStore', () => {
  it('takes the token from the fragment, stores it and strips it from the address', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const store = new TokenStore(storage, { hash: '#token=s3cret', pathname: '/', search: '' }, {
      state: null,
      replaceState: (_s: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)),
    });
    expect(store.captureFromLocation()).toBe(true);
    expect(store.token).toBe('s3cret');
    expect(replaced).toEqual(['/']);
    // A reload in the same tab finds it in sessionStorage.
    const again = new TokenStore(storage, { hash: '', pathname: '/', search: '' }, { state: null, replaceState: () => {} });
    expect(again.token).toBe('s3cret');
  });

  it('takes a token that arrives in the fragment later (hashchange), and strips it again', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const location = { hash: '', pathname: '/', search: '?x=1' };
    const history = { state: { keep: true }, replaceState: (s: unknown, _t: string, url?: string | URL | null) => void replaced.push(`${JSON.stringify(s)} ${String(url)}`) };
    const store = new TokenStore(storage, location, history);
    expect(store.captureFromLocation()).toBe(false);
    const events = new EventTarget();
    const stop = store.watch(events as unknown as Window);
    // Another fragment without a token changes nothing.
    location.hash = '#view=audit';
    events.dispatchEvent(new Event('hashchange'));
    expect(store.token).toBeNull();
    expect(replaced).toEqual([]);
    // The printed URL pasted into the same tab.
    location.hash = '#token=later&view=audit';
    events.dispatchEvent(new Event('hashchange'));
    expect(store.token).toBe('later');
    expect(storage.getItem('approval-console.token')).toBe('later');
    expect(replaced).toEqual(['{"keep":true} /?x=1#view=audit']);
    // A new one replaces it.
    location.hash = '#token=newer';
    events.dispatchEvent(new Event('hashchange'));
    expect(store.token).toBe('newer');
    stop();
    location.hash = '#token=ignored';
    events.dispatchEvent(new Event('hashchange'));
    expect(store.token).toBe('newer');
  });

  it('has no token when neither the address nor storage has one', () => {
    const store = new TokenStore(memoryStorage(), { hash: '', pathname: '/', search: '' }, { state: null, replaceState: () => {} });
    expect(store.captureFromLocation()).toBe(false);
    expect(store.token).toBeNull();
  });

  it('accepts a pasted token or the whole printed URL', () => {
    expect(parseTokenInput('  abc  ')).toBe('abc');
    expect(parseTokenInput('http://127.0.0.1:4000/#token=xyz')).toBe('xyz');
    expect(parseTokenInput('')).toBeNull();
    expect(parseTokenInput('two words')).toBeNull();
  });
});
