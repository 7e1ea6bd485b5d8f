/**
 * The call's fingerprint recomputed in the UI (rule S7) from what the operator is shown, to catch a
 * server (or anything between it and this window) showing arguments other than the ones it bound
 * the approval to: `"sha256:" + hex(SHA-256(JCS({"toolName": name, "args": args})))`.
 */
import { CanonicalizeError, canonicalJson } from './canonical';
import { i18n } from './i18n/index.svelte';
import { walkJson } from './json-text';

/**
 * What the check found:
 * - `verified`: the recomputed fingerprint equals the server's;
 * - `mismatch`: it does not: the arguments shown are not the ones the approval would be bound to;
 * - `unverifiable`: this window cannot tell, and `reason` says why (in the console's language as it
 *   is read: a result kept on screen follows a change of language).
 */
export type FingerprintCheck =
  | { status: 'verified'; computed: string }
  | { status: 'mismatch'; computed: string }
  | { status: 'unverifiable'; reason: string; computed?: string };

/** The text that is hashed: the canonical JSON of `{"toolName": toolName, "args": args}`. */
export function fingerprintInput(toolName: string, args: unknown): string {
  return canonicalJson({ toolName, args });
}

/** `"sha256:<hex>"` of `fingerprintInput`, with Web Crypto. Throws where Web Crypto is missing. */
export async function computeFingerprint(toolName: string, args: unknown): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error(i18n.m.args.webCryptoMissing);
  const bytes = new TextEncoder().encode(fingerprintInput(toolName, args));
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return 'sha256:' + Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * JSON Pointers of numbers this window may hold differently from the engine: integers beyond 2^53,
 * which `JSON.parse` rounds to the nearest double (`9007199254740993` becomes `…992`). The tool gets
 * the exact digits, the operator sees the rounded ones, and the fingerprint (RFC 8785 hashes numbers
 * as doubles) cannot tell them apart. Other numbers are safe: the server holds them as doubles and
 * sends their shortest round-trip form, which parses back to the same double.
 */
export function inexactNumbers(value: unknown, max = 3): { count: number; pointers: string[] } {
  const found = inexactPointers(value, max);
  return { count: found.count, pointers: found.pointers.map((p) => p || i18n.m.args.topLevel) };
}

/** `inexactNumbers` with the whole value's pointer as it is (empty). */
function inexactPointers(value: unknown, max: number): { count: number; pointers: string[] } {
  const found = { count: 0, pointers: [] as string[] };
  walkJson(value, (v, pointer) => {
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
      found.count++;
      if (found.pointers.length < max) found.pointers.push(pointer());
    }
  });
  return found;
}

/** Recomputes the fingerprint of `toolName` + `args` and compares it with the server's `fingerprint`. */
export async function checkFingerprint(toolName: string, args: unknown, fingerprint: string): Promise<FingerprintCheck> {
  if (!fingerprint.startsWith('sha256:')) {
    return unverifiable(() => i18n.m.args.notSha256);
  }
  let computed: string;
  try {
    computed = await computeFingerprint(toolName, args);
  } catch (e) {
    const problem = e instanceof CanonicalizeError ? e.message : null;
    return unverifiable(() => (problem !== null ? i18n.m.args.notPlainJson(problem) : i18n.m.args.noWebCrypto));
  }
  const inexact = inexactPointers(args, 3);
  if (inexact.count > 0) {
    return unverifiable(() => {
      const where = inexact.pointers.map((p) => p || i18n.m.args.topLevel).join(', ') + (inexact.count > inexact.pointers.length ? ', …' : '');
      return i18n.m.args.inexactReason(inexact.count, where);
    }, computed);
  }
  return computed === fingerprint.toLowerCase() ? { status: 'verified', computed } : { status: 'mismatch', computed };
}

/** An `unverifiable` result whose reason is put in words when it is read. */
function unverifiable(reason: () => string, computed?: string): FingerprintCheck {
  const result: Extract<FingerprintCheck, { status: 'unverifiable' }> = {
    status: 'unverifiable',
    get reason() {
      return reason();
    },
  };
  if (computed !== undefined) result.computed = computed;
  return result;
}
