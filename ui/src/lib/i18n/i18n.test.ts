import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../testing/storage';
import { en } from './en';
import { ja } from './ja';
import {
  LANGUAGE_STORAGE_KEY,
  LanguageSetting,
  languageFromPreferences,
  parseLanguageChoice,
  resolveLanguage,
  type LanguageSource,
} from './index.svelte';

class FakeSource implements LanguageSource {
  private listeners = new Set<() => void>();
  constructor(public list: string[]) {}
  languages() {
    return this.list;
  }
  onChange(listener: () => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(list: string[]) {
    this.list = list;
    for (const l of this.listeners) l();
  }
}

/** Every leaf of a table as [path, value]. */
function leaves(table: object, prefix = ''): [string, unknown][] {
  return Object.entries(table).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

/** Sample arguments for a message function, by arity: numbers, then strings. */
function sample(f: (...a: never[]) => unknown): unknown {
  const args = [3, 'x', 'y', 'z'].slice(0, f.length) as never[];
  try {
    return (f as (...a: never[]) => unknown)(...args);
  } catch {
    return (f as (...a: never[]) => unknown)(...(['a', 'b', 'c', 'd'].slice(0, f.length) as never[]));
  }
}

/** Keys whose Japanese text is rightly the English one (a format name, a product name). Keep it short. */
const SAME_IN_BOTH = new Set<string>([
  'settings.languageNames.en', // each language is named in its own language in every table
  'remote.title', // the product's name
  'remote.codePlaceholder', // what a pairing code looks like
  'resume.types.null', // the JSON literal `null`, as the schema's type is named
  // Where a call comes from, by product name (the local engine's badge is translated).
  'queue.sources.mastra',
  'queue.sources.langgraph',
  'engines.kinds.mastra', // which API a remote engine speaks, by product name
  'engines.kinds.langgraph',
  'queue.sources.a2a',
  'engines.kinds.a2a',
  'queue.sources.http',
  'queue.sources.claude-code',
  'queue.sources.codex',
  'queue.sources.gemini',
  'queue.sources.mcp',
  'queue.sources.acp',
  'queue.sources.openai-agents',
  'queue.sources.ai-sdk',
  'queue.sources.adk',
  'queue.sources.langchain',
  'queue.sources.ag-ui',
  'queue.connect.ways.claude-code', // how to connect an agent, by product name
]);

const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60]/;

describe('language', () => {
  it('reads unknown or missing stored values as "system", and the system as its first spoken language', () => {
    expect(['en', 'ja', 'system', null, '', 'JA', 'fr'].map(parseLanguageChoice)).toEqual(['en', 'ja', 'system', 'system', 'system', 'system', 'system']);
    expect(languageFromPreferences(['fr-FR', 'ja-JP', 'en-US'])).toBe('ja');
    expect(languageFromPreferences(['EN-gb', 'ja'])).toBe('en');
    expect(languageFromPreferences(['de', 'fr'])).toBe('en');
    expect(languageFromPreferences([])).toBe('en');
    expect(resolveLanguage('system', ['ja'])).toBe('ja');
    expect(resolveLanguage('en', ['ja'])).toBe('en');
  });

  it('applies the stored choice to <html lang>, follows the system while "system", and stores a change', () => {
    const storage = memoryStorage({ [LANGUAGE_STORAGE_KEY]: 'system' });
    const root = document.createElement('html');
    const source = new FakeSource(['en-US']);
    const setting = new LanguageSetting(storage, root, source);
    setting.start();
    expect(root.lang).toBe('en');
    expect(setting.m.common.approve).toBe('Approve');
    source.set(['ja-JP', 'en']);
    expect(root.lang).toBe('ja');
    expect(setting.m.common.approve).toBe(ja.common.approve);
    setting.set('en');
    expect(root.lang).toBe('en');
    expect(storage.getItem(LANGUAGE_STORAGE_KEY)).toBe('en');
    source.set(['ja']);
    expect(setting.language).toBe('en');
    setting.dispose();

    const again = new LanguageSetting(storage, document.createElement('html'), new FakeSource(['ja']));
    again.start();
    expect(again.language).toBe('en');
    again.dispose();
  });

  it('has the same keys in both tables, and message functions of the same arity', () => {
    const enLeaves = leaves(en);
    const jaLeaves = new Map(leaves(ja));
    expect([...jaLeaves.keys()].sort()).toEqual(enLeaves.map(([k]) => k).sort());
    for (const [key, value] of enLeaves) {
      const other = jaLeaves.get(key);
      expect(typeof other, key).toBe(typeof value);
      if (typeof value === 'function') expect((other as () => unknown).length, key).toBe(value.length);
    }
  });

  it('translates every Japanese entry (each has Japanese text, and none is left the same as English)', () => {
    const english = new Map(leaves(en));
    const untranslated: string[] = [];
    for (const [key, value] of leaves(ja)) {
      const text = typeof value === 'function' ? sample(value as (...a: never[]) => unknown) : value;
      const original = english.get(key);
      const englishText = typeof original === 'function' ? sample(original as (...a: never[]) => unknown) : original;
      if (typeof text !== 'string' || SAME_IN_BOTH.has(key)) continue;
      // Words that are the same in both (a product name, a code, a unit) are allowed when they have no letters to translate.
      if (!/[A-Za-z]{2,}/.test(String(englishText))) continue;
      if (text === englishText || !JAPANESE.test(text)) untranslated.push(`${key}: ${JSON.stringify(text)}`);
    }
    expect(untranslated).toEqual([]);
  });
});
