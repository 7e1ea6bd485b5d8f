/** Codes with a title of their own; any other code is shown as "Error: <code>" with its message. */
export const KNOWN_CODES = [
  'unauthorized',
  'not_found',
  'fingerprint_mismatch',
  'already_decided',
  'decision_not_allowed',
  'invalid_resume_data',
  'invalid_arguments',
  'invalid_request',
  'snapshot_not_found',
  'storage_busy',
  'payload_too_large',
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

/** What a banner says for each error code. Chosen by `code` only; the server's message is shown below it as text. */
export function bannerTitle(code: string): string {
  switch (code) {
    case 'unauthorized':
      return 'The access token is wrong or missing.';
    case 'not_found':
      return 'This call no longer exists.';
    case 'fingerprint_mismatch':
      return 'The call changed since you looked at it. Your decision was not applied; review the reloaded call.';
    case 'already_decided':
      return 'Someone else already decided this call. It has been reloaded.';
    case 'invalid_resume_data':
      return 'The resume data was rejected. See the marked fields.';
    case 'invalid_arguments':
      return 'The edited arguments were rejected by the tool\'s input schema. Nothing was approved.';
    case 'decision_not_allowed':
      return 'This decision is not allowed for this call. It has been reloaded.';
    case 'snapshot_not_found':
      return 'The engine no longer has the saved run for this call, so it cannot continue.';
    case 'storage_busy':
      return 'The console database is busy. Try again in a moment.';
    case 'payload_too_large':
      return 'The request was too large for the server.';
    case 'invalid_request':
      return 'The server rejected the request as invalid.';
    case 'high_risk_tool':
      return 'This tool is high-risk: it cannot be always allowed. Decide each call.';
    case 'engine_error':
      return 'The engine reported an error.';
    case 'engine_unreachable':
      return 'The engine cannot be reached (or refused the token).';
    case 'keyring_unavailable':
      return 'The OS keyring is not available, so the token could not be stored. Nothing was saved.';
    case 'keyring_locked':
      return 'The OS keyring is locked. Unlock it and try again; nothing was saved.';
    case 'keyring_error':
      return 'The OS keyring reported an error.';
    case 'secret_not_found':
      return 'The stored token was not found in the OS keyring.';
    case 'internal':
      return 'The console server hit an internal error.';
    case 'network':
      return 'The console server cannot be reached.';
    case 'bad_response':
      return 'The console server sent an unexpected response.';
    case 'args_changed':
      return 'The arguments of the call you are viewing changed. Review them again before deciding.';
    default:
      return `Error: ${code}`;
  }
}

/** `{expected, actual}` of a `fingerprint_mismatch`, if present. */
export function mismatchDetails(details: unknown): { expected: string; actual: string } | null {
  if (!details || typeof details !== 'object') return null;
  const { expected, actual } = details as { expected?: unknown; actual?: unknown };
  if (typeof expected !== 'string' && typeof actual !== 'string') return null;
  return { expected: String(expected ?? ''), actual: String(actual ?? '') };
}
