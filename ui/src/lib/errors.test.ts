import { afterEach, describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { Banners } from './banners.svelte';
import ErrorBanners from './components/ErrorBanners.svelte';
import InlineError from './components/InlineError.svelte';
import { KNOWN_CODES, bannerTitle } from './errors';
import { en } from './i18n/en';
import { i18n } from './i18n/index.svelte';
import { mountInBody } from './testing/mount';

const NEW_CODES = ['forbidden', 'run_exists', 'missing_arguments', 'ambiguous_arguments', 'token_required', 'unsafe_permissions'];

describe('error titles', () => {
  afterEach(() => i18n.set('system'));

  it('has a title of its own for every known code, in English and Japanese, and the codes of issue 12 among them', () => {
    expect(KNOWN_CODES).toEqual(expect.arrayContaining(NEW_CODES));
    expect([...KNOWN_CODES].sort()).toEqual(Object.keys(en.errors.titles).sort());
    for (const lang of ['en', 'ja'] as const) {
      i18n.set(lang);
      for (const code of KNOWN_CODES) {
        const title = bannerTitle(code);
        expect(title, `${lang} ${code}`).not.toBe(i18n.m.errors.unknown(code));
        // A code such as `token_required` never stands in for words (`internal` may be a word).
        if (code.includes('_')) expect(title, `${lang} ${code}`).not.toContain(code);
      }
    }
    i18n.set('en');
    expect(bannerTitle('something_new')).toBe('Error: something_new');
  });

  it('shows a forbidden refusal with its title and the server message, never the bare code as the title', () => {
    i18n.set('en');
    const banners = new Banners();
    banners.push({ code: 'forbidden', message: 'this needs the admin role; alice is operator', details: { needed: 'admin', role: 'operator' } });
    const { target } = mountInBody(ErrorBanners, { props: { banners } });
    flushSync();
    const banner = target.querySelector('[data-testid="error-banner"]')!;
    expect(banner.getAttribute('data-code')).toBe('forbidden');
    expect(banner.querySelector('strong')!.textContent).toBe("This token's role does not allow this. Nothing was changed.");
    expect(banner.textContent).toContain('this needs the admin role; alice is operator');
    expect(banner.textContent).not.toContain('code:');

    i18n.set('ja');
    flushSync();
    expect(banner.querySelector('strong')!.textContent).toBe('このトークンの役割ではこの操作はできません。何も変更されていません。');

    const inline = mountInBody(InlineError, { props: { error: { code: 'token_required', message: 'the URL of engine prod changes' } } });
    flushSync();
    expect(inline.target.querySelector('strong')!.textContent).toBe(i18n.m.errors.titles.token_required);
    expect(inline.target.querySelector('[data-testid="inline-error-message"]')!.textContent).toBe('the URL of engine prod changes');
  });
});
