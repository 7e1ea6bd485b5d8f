/**
 * Widenings ask everywhere: the server refuses a settings change that lets more through without an
 * operator (a high-risk tool removed, a quorum lowered) with `widening_unconfirmed`, its
 * `details.widens` saying what, one line each; the settings view shows those lines and, on the
 * operator's confirmation, sends the change again with `confirmWidening: true`.
 */
import { ApiError } from './backend/backend';

/** A save the server held back for a confirmation: what it widens. */
export type Widens = { widens: string[] };

/** What the server said widens, if `e` is that refusal (`null` otherwise). */
export function widensOf(e: unknown): string[] | null {
  if (!(e instanceof ApiError) || e.code !== 'widening_unconfirmed') return null;
  const lines = (e.details as { widens?: unknown } | null)?.widens;
  return Array.isArray(lines) ? lines.filter((l): l is string => typeof l === 'string') : [];
}

/** Whether a part's save was held back for a confirmation. */
export function isWidens(outcome: unknown): outcome is Widens {
  return typeof outcome === 'object' && outcome !== null && Array.isArray((outcome as Widens).widens);
}
