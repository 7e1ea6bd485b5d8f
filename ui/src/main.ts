// The only place that chooses the Backend implementation: Tauri IPC inside the desktop window, HTTP +
// SSE (with a bearer token) in a browser. Components never know which one they have.
import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import type { Backend } from './lib/backend/backend';
import { TauriBackend } from './lib/backend/tauri';
import { WebBackend } from './lib/backend/web';
import { i18n } from './lib/i18n/index.svelte';
import { pageTheme } from './lib/theme.svelte';
import { TokenStore } from './lib/token.svelte';
import { stepUp } from './lib/passkey';

// The stored theme goes on <html> before anything is mounted, so the first paint has its colours.
pageTheme.start();
// The language too (<html lang>, and the words of the first render).
i18n.start();

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

let backend: Backend;
let auth: TokenStore | null = null;
let remote = false;
if ('__TAURI_INTERNALS__' in window) {
  // The desktop app: commands run in-process, no token to ask for.
  backend = new TauriBackend();
} else if (window.location.protocol === 'https:') {
  // The remote listener (serve --listen): a paired device's session cookie, never a token in the
  // page; every decision asks for the device's passkey.
  remote = true;
  backend = new WebBackend({ getToken: () => null, stepUp });
} else {
  const store = new TokenStore(sessionStore(), window.location, window.history);
  store.captureFromLocation();
  // The printed URL pasted into a tab already open on the bare address: only the fragment changes.
  store.watch(window);
  auth = store;
  backend = new WebBackend({ getToken: () => store.token });
}

mount(App, { target: document.getElementById('app')!, props: { backend, auth, remote } });
