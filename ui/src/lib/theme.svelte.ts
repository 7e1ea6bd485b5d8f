/**
 * Light, dark, or the system's: the operator's choice, kept in `localStorage` (this browser
 * profile or the desktop window), shown as `data-theme="light" | "dark"` on `<html>`, where
 * `app.css` holds both palettes. With "system", the attribute follows `prefers-color-scheme` live.
 */

import { pageStorage, readStored, writeStored } from './stored';

export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
export const THEME_STORAGE_KEY = 'approval-console.theme';
export const DARK_QUERY = '(prefers-color-scheme: dark)';

/** A stored value as a choice: anything unknown (or nothing stored) is "system". */
export function parseThemeChoice(value: string | null | undefined): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
}

/** What `ThemeSetting` reads of a `MediaQueryList`. */
export type DarkQuery = Pick<MediaQueryList, 'matches' | 'addEventListener' | 'removeEventListener'>;

export class ThemeSetting {
  /** The operator's choice; change it with `set`. */
  choice = $state<ThemeChoice>('system');
  /** Whether the system asks for dark colours (as of `start` and its changes since). */
  systemDark = $state(false);
  /** The theme on screen. */
  readonly theme: Theme = $derived(resolveTheme(this.choice, this.systemDark));

  private stop: (() => void) | null = null;

  constructor(
    private readonly storage: Storage | null,
    private readonly root: HTMLElement,
    private readonly dark: DarkQuery | null,
  ) {}

  /**
   * Reads the stored choice, applies it, and from then on follows the system's changes (they
   * matter while the choice is "system"). Call before mounting the app, so the first paint has
   * the right colours. Again: a no-op.
   */
  start(): void {
    if (this.stop) return;
    this.choice = parseThemeChoice(readStored(this.storage, THEME_STORAGE_KEY));
    this.systemDark = this.dark?.matches ?? false;
    this.apply();
    const onChange = (e: MediaQueryListEvent) => {
      this.systemDark = e.matches;
      this.apply();
    };
    this.dark?.addEventListener('change', onChange);
    this.stop = () => this.dark?.removeEventListener('change', onChange);
  }

  /** Stops following the system (tests). */
  dispose(): void {
    this.stop?.();
    this.stop = null;
  }

  /** Stores and applies a choice. A storage that refuses (private mode, quota) only loses it for the next start. */
  set(choice: ThemeChoice): void {
    this.choice = choice;
    writeStored(this.storage, THEME_STORAGE_KEY, choice);
    this.apply();
  }

  private apply(): void {
    this.root.dataset.theme = this.theme;
  }
}

/** The page's setting: `main.ts` starts it before mounting; Settings changes it. */
export const pageTheme = new ThemeSetting(
  pageStorage(),
  document.documentElement,
  typeof window.matchMedia === 'function' ? window.matchMedia(DARK_QUERY) : null,
);
