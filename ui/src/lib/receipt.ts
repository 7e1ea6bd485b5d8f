/**
 * Reads a decision's signed receipt (docs/receipts.md) for display: the key id of its header and
 * the claims of its payload.
 *
 * DISPLAY ONLY: the UI does not verify the signature (nor the key, the expiry, the fingerprint or
 * replay) — the place where the tool runs does, with the verifiers of this repo. Nothing here may
 * be taken as "this receipt is valid"; it only says what the receipt claims.
 *
 * Never throws: anything that is not three base64url segments with a JSON object header carrying a
 * string `kid` and a JSON object payload is `null` (the UI then offers only to copy the text).
 * A claim of the wrong type is left out, as if absent.
 */

export type ReceiptClaims = {
  id?: string;
  /** `approved`, `declined` or `answered` (shown as it came otherwise). */
  decision?: string;
  tool?: string;
  callId?: string;
  /** The principals who decided (`local:alice`, `token:bob`, …); only the strings of the claim. */
  approvers?: string[];
  policyVersion?: string;
  /** Unix seconds, an integer a `Date` can hold. */
  issuedAt?: number;
  /** Unix seconds, an integer a `Date` can hold. */
  expiresAt?: number;
};

export type ReadReceipt = { kid: string; claims: ReceiptClaims };

const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** The largest time a `Date` holds, in seconds (±8.64e15 ms). */
const MAX_DATE_SECS = 8.64e12;

/** The bytes of unpadded base64url text, decoded as strict UTF-8; `null` for anything else. */
export function decodeBase64url(segment: string): string | null {
  if (!BASE64URL.test(segment) || segment.length % 4 === 1) return null;
  try {
    const binary = atob(segment.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (segment.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** A JSON object (not an array, not null) from base64url text; `null` for anything else. */
function jsonObject(segment: string): Record<string, unknown> | null {
  const text = decodeBase64url(segment);
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function secs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= MAX_DATE_SECS ? value : undefined;
}

/** What a receipt says, unverified (see above); `null` when it is not a readable JWS of a receipt. */
export function readReceipt(jws: string): ReadReceipt | null {
  if (typeof jws !== 'string') return null;
  const parts = jws.trim().split('.');
  if (parts.length !== 3 || parts.some((p) => p === '')) return null;
  const header = jsonObject(parts[0]);
  const payload = jsonObject(parts[1]);
  if (!header || !payload || typeof header.kid !== 'string') return null;
  // The signature is not checked, only that it is base64url like the rest.
  if (!BASE64URL.test(parts[2])) return null;
  const claims: ReceiptClaims = {};
  const set = <K extends keyof ReceiptClaims>(key: K, value: ReceiptClaims[K] | undefined) => {
    if (value !== undefined) claims[key] = value;
  };
  set('id', str(payload.id));
  set('decision', str(payload.decision));
  set('tool', str(payload.tool));
  set('callId', str(payload.callId));
  set('policyVersion', str(payload.policyVersion));
  if (Array.isArray(payload.approvers)) set('approvers', payload.approvers.filter((a): a is string => typeof a === 'string'));
  set('issuedAt', secs(payload.issuedAt));
  set('expiresAt', secs(payload.expiresAt));
  return { kid: header.kid, claims };
}

/** A claim's Unix seconds as an RFC 3339 string (for `formatDateTime` and `<time datetime>`). */
export function receiptTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
