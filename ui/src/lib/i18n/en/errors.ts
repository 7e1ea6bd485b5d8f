/** English words of the `errors` section (see ../index.svelte.ts): banner titles by error code, and the banners' own words. */
export const errors = {
  /** A banner's title, chosen by the error's `code` only; the server's message is shown below it as it came. */
  titles: {
    unauthorized: 'The access token is wrong or missing.',
    not_found: 'This call no longer exists.',
    fingerprint_mismatch: 'The call changed since you looked at it. Your decision was not applied; review the reloaded call.',
    already_decided: 'Someone else already decided this call. It has been reloaded.',
    invalid_resume_data: 'The resume data was rejected. See the marked fields.',
    invalid_arguments: "The edited arguments were rejected by the tool's input schema. Nothing was approved.",
    decision_not_allowed: 'This decision is not allowed for this call. It has been reloaded.',
    snapshot_not_found: 'The engine no longer has the saved run for this call, so it cannot continue.',
    storage_busy: 'The console database is busy. Try again in a moment.',
    payload_too_large: 'The request was too large for the server.',
    invalid_request: 'The server rejected the request as invalid.',
    high_risk_tool: 'This tool is high-risk: it cannot be always allowed. Decide each call.',
    engine_error: 'The engine reported an error.',
    engine_unreachable: 'The engine cannot be reached (or refused the token).',
    keyring_unavailable: 'The OS keyring is not available, so the token could not be stored. Nothing was saved.',
    keyring_locked: 'The OS keyring is locked. Unlock it and try again; nothing was saved.',
    keyring_error: 'The OS keyring reported an error.',
    secret_not_found: 'The stored token was not found in the OS keyring.',
    internal: 'The console server hit an internal error.',
    network: 'The console server cannot be reached.',
    bad_response: 'The console server sent an unexpected response.',
    args_changed: 'The arguments of the call you are viewing changed. Review them again before deciding.',
  },
  /** The title for a code without one of its own. */
  unknown: (code: string) => `Error: ${code}`,
  fingerprintSeen: 'Fingerprint you saw',
  fingerprintNow: 'Fingerprint now',
  otherToken: 'Enter a different token',
  /** Before an unknown error code. */
  code: 'code:',
  dismiss: 'Dismiss',
};
