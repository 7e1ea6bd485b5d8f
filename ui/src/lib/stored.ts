/**
 * A choice kept in this browser profile (or the desktop window): `localStorage`, which may be
 * missing or refuse (private mode, quota, a sandboxed frame). A refusal only loses the choice for
 * the next start; it never stops the page.
 */

/** This page's `localStorage`, or `null` where there is none. */
export function pageStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The stored value under `key`; `null` when nothing is stored or the storage refuses. */
export function readStored(storage: Storage | null, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** Stores `value` under `key` if the storage lets it. */
export function writeStored(storage: Storage | null, key: string, value: string): void {
  try {
    storage?.setItem(key, value);
  } catch {
    // applied for this page all the same
  }
}
