import { i18n } from './i18n/index.svelte';

/** Codes with a title of their own; any other code is shown as "Error: <code>" with its message. */
export const KNOWN_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'fingerprint_mismatch',
  'already_decided',
  'decision_not_allowed',
  'invalid_resume_data',
  'invalid_arguments',
  'invalid_request',
  'high_risk_tool',
  'already_approved',
  'own_run',
  'quorum_tool',
  'grant_too_broad',
  'snapshot_not_found',
  'storage_busy',
  'payload_too_large',
  'rate_limited',
  'run_exists',
  'missing_arguments',
  'ambiguous_arguments',
  'token_required',
  'unsafe_permissions',
  'step_up_required',
  'receipt_expired',
  'widening_unconfirmed',
  'engine_error',
  'engine_unreachable',
  'keyring_unavailable',
  'keyring_locked',
  'keyring_error',
  'secret_not_found',
  'internal',
  'network',
  'bad_response',
  'args_changed',
];

/**
 * The keyring could not take a token (missing, or locked): the form that sent it keeps the typed
 * token and offers to keep it for this session only (`sessionOnly: true`) instead.
 */
export function keyringCannotHold(code: string): boolean {
  return code === 'keyring_unavailable' || code === 'keyring_locked';
}

/**
 * What a banner says for each error code, in the console's language. Chosen by `code` only; the
 * server's message is shown below it as text.
 */
export function bannerTitle(code: string): string {
  const m = i18n.m.errors;
  return Object.hasOwn(m.titles, code) ? m.titles[code as keyof typeof m.titles] : m.unknown(code);
}

/** `{expected, actual}` of a `fingerprint_mismatch`, if present. */
export function mismatchDetails(details: unknown): { expected: string; actual: string } | null {
  if (!details || typeof details !== 'object') return null;
  const { expected, actual } = details as { expected?: unknown; actual?: unknown };
  if (typeof expected !== 'string' && typeof actual !== 'string') return null;
  return { expected: String(expected ?? ''), actual: String(actual ?? '') };
}
