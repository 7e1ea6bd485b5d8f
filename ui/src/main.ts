// The only place that chooses the Backend implementation. A Tauri build will pick its IPC
// backend here; components never know which one they have.
import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { TokenStore } from './lib/token.svelte';
import { WebBackend } from './lib/backend/web';

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

const auth = new TokenStore(sessionStore(), window.location, window.history);
auth.captureFromLocation();
const backend = new WebBackend({ getToken: () => auth.token });

mount(App, { target: document.getElementById('app')!, props: { backend, auth } });
