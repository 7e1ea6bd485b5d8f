import { describe, expect, it } from 'vitest';
import { memoryStorage } from './testing/storage';
import { parseThemeChoice, resolveTheme, THEME_STORAGE_KEY, ThemeSetting, type DarkQuery } from './theme.svelte';

/** `prefers-color-scheme: dark` as a test sets it; `set` fires `change` like the system would. */
class FakeDarkQuery implements DarkQuery {
  private listeners = new Set<(e: MediaQueryListEvent) => void>();
  constructor(public matches: boolean) {}
  addEventListener(_type: string, l: EventListenerOrEventListenerObject) {
    this.listeners.add(l as (e: MediaQueryListEvent) => void);
  }
  removeEventListener(_type: string, l: EventListenerOrEventListenerObject) {
    this.listeners.delete(l as (e: MediaQueryListEvent) => void);
  }
  set(matches: boolean) {
    this.matches = matches;
    for (const l of this.listeners) l({ matches } as MediaQueryListEvent);
  }
  get listening() {
    return this.listeners.size;
  }
}

function setup(stored: string | null, systemDark: boolean) {
  const storage = memoryStorage(stored === null ? {} : { [THEME_STORAGE_KEY]: stored });
  const root = document.createElement('html');
  const dark = new FakeDarkQuery(systemDark);
  const theme = new ThemeSetting(storage, root, dark);
  return { storage, root, dark, theme };
}

describe('theme', () => {
  it('reads unknown or missing stored values as "system"', () => {
    expect(['light', 'dark', 'system', null, '', 'DARK', 'blue'].map(parseThemeChoice)).toEqual(['light', 'dark', 'system', 'system', 'system', 'system', 'system']);
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
  });

  it('applies the stored choice on start, whatever the system says', () => {
    const { root, theme } = setup('dark', false);
    expect(root.dataset.theme).toBeUndefined();
    theme.start();
    expect(theme.choice).toBe('dark');
    expect(root.dataset.theme).toBe('dark');
  });

  it('follows the system live while the choice is "system", and not once a theme is chosen', () => {
    const { root, dark, theme, storage } = setup(null, false);
    theme.start();
    expect(root.dataset.theme).toBe('light');
    dark.set(true);
    expect(root.dataset.theme).toBe('dark');
    expect(theme.systemDark).toBe(true);

    theme.set('light');
    expect(storage.getItem(THEME_STORAGE_KEY)).toBe('light');
    expect(root.dataset.theme).toBe('light');
    dark.set(false);
    dark.set(true);
    expect(root.dataset.theme).toBe('light');

    theme.set('system');
    expect(storage.getItem(THEME_STORAGE_KEY)).toBe('system');
    expect(root.dataset.theme).toBe('dark');
    theme.dispose();
    expect(dark.listening).toBe(0);
  });

  it('still applies a choice the storage refuses to keep, and starts without storage or media queries', () => {
    const root = document.createElement('html');
    const refusing = { ...memoryStorage(), setItem: () => { throw new DOMException('full', 'QuotaExceededError'); }, getItem: () => { throw new DOMException('denied', 'SecurityError'); } } as Storage;
    const theme = new ThemeSetting(refusing, root, null);
    theme.start();
    expect(root.dataset.theme).toBe('light');
    theme.set('dark');
    expect(root.dataset.theme).toBe('dark');

    const bare = new ThemeSetting(null, root, null);
    bare.start();
    expect(bare.choice).toBe('system');
    expect(root.dataset.theme).toBe('light');
  });
});
