// Runs before every test file (vite.config.ts `setupFiles`). Test files share their worker's jsdom
// and modules (`isolate: false`), so what one test leaves in the page's shared state — the language,
// the theme, stored preferences, the address — is put back after every test, whatever order files run in.
import { flushSync } from 'svelte';
import { afterEach } from 'vitest';
import { i18n } from '../i18n/index.svelte';
import { pageTheme } from '../theme.svelte';

afterEach(() => {
  i18n.set('system');
  pageTheme.set('system');
  flushSync();
  localStorage.clear();
  sessionStorage.clear();
  // The console writes its place into the address (`route.ts`): the next test starts at none.
  history.replaceState(null, '', location.pathname + location.search);
});
