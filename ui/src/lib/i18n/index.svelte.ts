/**
 * The language of the console: English or Japanese (the source documentation of the approval
 * flow is Japanese), or the system's — the first of the browser's (or the desktop window's)
 * preferred languages that the console speaks, English otherwise. The choice is kept in
 * `localStorage` like the theme, shown as `<html lang>`, and followed live.
 *
 * Components read their words from `i18n.m` (a `Messages` object, typed: a Japanese table that
 * misses a key or takes other parameters does not compile). Reading `i18n.m` inside a template or
 * `$derived` re-renders on a change of language; plain modules that return words (errors, time)
 * read it when they are called.
 */

import { en, type Messages } from './en';
import { ja } from './ja';
import { pageStorage, readStored, writeStored } from '../stored';

export type { Messages };
export type LanguageChoice = 'system' | 'en' | 'ja';
export type Language = 'en' | 'ja';

export const LANGUAGE_CHOICES: readonly LanguageChoice[] = ['system', 'en', 'ja'];
export const LANGUAGE_STORAGE_KEY = 'approval-console.language';

const TABLES: Record<Language, Messages> = { en, ja };

/** A stored value as a choice: anything unknown (or nothing stored) is "system". */
export function parseLanguageChoice(value: string | null | undefined): LanguageChoice {
  return value === 'en' || value === 'ja' ? value : 'system';
}

/** The first preferred language the console speaks (`ja-JP` → `ja`); English when none is. */
export function languageFromPreferences(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'en' || primary === 'ja') return primary;
  }
  return 'en';
}

export function resolveLanguage(choice: LanguageChoice, preferred: readonly string[]): Language {
  return choice === 'system' ? languageFromPreferences(preferred) : choice;
}

export function messagesFor(language: Language): Messages {
  return TABLES[language];
}

/** What `LanguageSetting` reads of `navigator` and `window`. */
export type LanguageSource = {
  languages(): readonly string[];
  onChange(listener: () => void): () => void;
};

export class LanguageSetting {
  /** The operator's choice; change it with `set`. */
  choice = $state<LanguageChoice>('system');
  /** The system's preferred languages (as of `start` and its changes since). */
  preferred = $state<readonly string[]>([]);
  /** The language on screen. */
  readonly language: Language = $derived(resolveLanguage(this.choice, this.preferred));
  /** The words on screen. */
  readonly m: Messages = $derived(TABLES[this.language]);

  private stop: (() => void) | null = null;

  constructor(
    private readonly storage: Storage | null,
    private readonly root: HTMLElement | null,
    private readonly source: LanguageSource | null,
  ) {}

  /** Reads the stored choice, applies it, and follows the system's changes. Again: a no-op. */
  start(): void {
    if (this.stop) return;
    this.choice = parseLanguageChoice(readStored(this.storage, LANGUAGE_STORAGE_KEY));
    this.preferred = this.source?.languages() ?? [];
    this.apply();
    const off = this.source?.onChange(() => {
      this.preferred = this.source?.languages() ?? [];
      this.apply();
    });
    this.stop = off ?? (() => {});
  }

  /** Stops following the system (tests). */
  dispose(): void {
    this.stop?.();
    this.stop = null;
  }

  /** Stores and applies a choice. A storage that refuses only loses it for the next start. */
  set(choice: LanguageChoice): void {
    this.choice = choice;
    writeStored(this.storage, LANGUAGE_STORAGE_KEY, choice);
    this.apply();
  }

  private apply(): void {
    if (this.root) this.root.lang = this.language;
  }
}

const navigatorSource: LanguageSource | null =
  typeof window === 'undefined'
    ? null
    : {
        languages: () =>
          navigator.languages?.length ? navigator.languages : navigator.language ? [navigator.language] : [],
        onChange: (listener) => {
          window.addEventListener('languagechange', listener);
          return () => window.removeEventListener('languagechange', listener);
        },
      };

/** The page's setting: `main.ts` starts it before mounting; Settings changes it. */
export const i18n = new LanguageSetting(
  pageStorage(),
  typeof document === 'undefined' ? null : document.documentElement,
  navigatorSource,
);
