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
