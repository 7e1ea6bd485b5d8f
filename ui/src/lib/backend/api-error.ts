/** The one shape of a failed backend call (re-exported by `backend.ts`), and how a fingerprint is shown short. */

import type { components } from './api.gen';

/**
 * Error codes: the server's (its `ErrorCode` schema, generated from the Rust enum, so a new code
 * reaches the UI with `npm run gen:api`) and two of the client's own. The UI branches on these,
 * never on message text; what each means and its details are documented on the Rust enum.
 */
export type KnownErrorCode =
  | components['schemas']['ErrorCode']
  /** Client side: the server could not be reached at all. */
  | 'network'
  /** Client side: the server answered with something that is not the `{code, message}` shape. */
  | 'bad_response';

/** A failed backend call: `code` decides how the UI reacts; `message` is for humans only. */
export class ApiError extends Error {
  readonly code: string;
  readonly details: unknown;
  readonly status: number | null;

  constructor(code: string, message: string, details?: unknown, status: number | null = null) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details ?? null;
    this.status = status;
  }

  /** Wraps anything thrown into an `ApiError` so callers handle one shape. */
  static from(e: unknown): ApiError {
    if (e instanceof ApiError) return e;
    if (e instanceof Error) return new ApiError('network', e.message);
    return new ApiError('network', String(e));
  }
}

/** `"sha256:<hex>"` → first 12 hex chars; anything else is returned cut to 12 chars. */
export function shortFingerprint(fp: string | null | undefined): string {
  if (!fp) return '';
  const hex = fp.startsWith('sha256:') ? fp.slice('sha256:'.length) : fp;
  return hex.slice(0, 12);
}
