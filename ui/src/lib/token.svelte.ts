/**
 * The web build's bearer token. `approval-console serve` prints `http://127.0.0.1:PORT/#token=TOKEN`;
 * on start the token is taken from the fragment, kept in sessionStorage (this tab only), and the
 * fragment is removed from the address bar so it is not left in history or screenshots. The same
 * happens when the fragment changes later (`watch`): pasting the printed URL into a tab that opened
 * the bare address changes only the fragment, and the page is not loaded again.
 */

const STORAGE_KEY = 'approval-console.token';

type Loc = Pick<Location, 'hash' | 'pathname' | 'search'>;
type Hist = Pick<History, 'replaceState' | 'state'>;

export class TokenStore {
  token = $state<string | null>(null);

  constructor(
    private readonly storage: Storage | null,
    private readonly location: Loc,
    private readonly history: Hist,
  ) {
    this.token = readStorage(storage);
  }

  /** Takes `#token=…` from the address, stores it and strips the fragment. Returns whether one was found. */
  captureFromLocation(): boolean {
    const token = tokenFromHash(this.location.hash);
    if (this.location.hash.length > 1) {
      const params = new URLSearchParams(this.location.hash.slice(1));
      if (params.has('token')) {
        params.delete('token');
        const rest = params.toString();
        this.history.replaceState(this.history.state, '', this.location.pathname + this.location.search + (rest ? `#${rest}` : ''));
      }
    }
    if (token) this.set(token);
    return token !== null;
  }

  /**
   * Takes the token from the fragment whenever it changes (`hashchange`), as at start; returns a
   * function that stops it.
   */
  watch(target: Pick<Window, 'addEventListener' | 'removeEventListener'>): () => void {
    const onChange = () => void this.captureFromLocation();
    target.addEventListener('hashchange', onChange);
    return () => target.removeEventListener('hashchange', onChange);
  }

  /** Accepts a bare token or a whole URL printed by `approval-console serve`. */
  set(input: string): boolean {
    const token = parseTokenInput(input);
    if (!token) return false;
    this.token = token;
    try {
      this.storage?.setItem(STORAGE_KEY, token);
    } catch {
      // Storage may be disabled; the token then lives only in memory for this page.
    }
    return true;
  }

  clear(): void {
    this.token = null;
    try {
      this.storage?.removeItem(STORAGE_KEY);
    } catch {
      // ignore
    }
  }
}

export function tokenFromHash(hash: string): string | null {
  if (!hash || hash.length < 2) return null;
  const t = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return t && t.trim() ? t.trim() : null;
}

/** `"abc"` → `"abc"`; `"http://127.0.0.1:1/#token=abc"` → `"abc"`; blank → null. */
export function parseTokenInput(input: string): string | null {
  const s = input.trim();
  if (!s) return null;
  const i = s.indexOf('#');
  if (i !== -1) return tokenFromHash(s.slice(i));
  if (/\s/.test(s)) return null;
  return s;
}

function readStorage(storage: Storage | null): string | null {
  try {
    return storage?.getItem(STORAGE_KEY) || null;
  } catch {
    return null;
  }
}
