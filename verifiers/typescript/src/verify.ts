// Checking a receipt, exactly in the order of docs/receipts.md "Checking a receipt".
import { inexactPaths } from "./exact.ts";
import { fingerprint } from "./fingerprint.ts";
import { findKey } from "./jwks.ts";
import type { Jwk, Jwks, KeySource } from "./jwks.ts";
import type { ReceiptStore } from "./stores.ts";

/** Why a receipt is refused; the first failing check, in the order of docs/receipts.md. */
export type RefusalCode =
  | "malformed"
  | "unknown_key"
  | "bad_signature"
  | "unsupported_version"
  | "key_retired"
  | "expired"
  | "not_approved"
  | "tool_mismatch"
  | "call_mismatch"
  | "ambiguous_arguments"
  | "fingerprint_mismatch"
  | "replayed";

/** A receipt's claims (the signed payload). Unknown claims are kept as they are. */
export interface ReceiptClaims {
  version: 1;
  id: string;
  decision: string;
  tool: string;
  issuedAt: number;
  expiresAt: number;
  edited?: boolean;
  fingerprint?: string;
  executedFingerprint?: string;
  source?: string;
  engine?: string;
  agent?: string;
  runId?: string;
  toolCallId?: string;
  callId?: string;
  approvers?: string[];
  policyVersion?: string;
  [other: string]: unknown;
}

export type VerifyResult =
  | { ok: true; claims: ReceiptClaims }
  | { ok: false; code: RefusalCode; message: string };

export interface VerifyOptions {
  /** The key set, or a source of keys by kid (`fetchJwks(url)`). */
  jwks: Jwks | KeySource;
  /** The name of the tool about to run. */
  tool: string;
  /**
   * The arguments it is about to run with (JSON values; read from JSON text with `parseExact`, their
   * numbers are judged as written).
   */
  args: unknown;
  /** The run id the caller expects, if any: then the receipt's `runId` must equal it. */
  runId?: string;
  /** The tool-call id the caller expects, if any: then the receipt's `toolCallId` must equal it. */
  toolCallId?: string;
  /** Where used receipt ids are recorded (step 10). */
  store: ReceiptStore;
  /** The time to check against, Unix seconds (default: now). */
  now?: number;
}

const refuse = (code: RefusalCode, message: string): VerifyResult => ({ ok: false, code, message });

/** Strict base64url without padding: the alphabet only, and the one canonical spelling of the bytes. */
export function decodeBase64url(s: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return undefined;
  const bytes = Buffer.from(s, "base64url");
  if (bytes.toString("base64url") !== s) return undefined; // non-zero leftover bits
  const out = new Uint8Array(bytes.length); // a copy that owns its buffer (not Buffer's pool)
  out.set(bytes);
  return out;
}

/** A JSON object from base64url-encoded UTF-8, or undefined. */
function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  const bytes = decodeBase64url(segment);
  if (!bytes) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    return value as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const isKeySource = (j: Jwks | KeySource): j is KeySource => typeof (j as KeySource).getKey === "function";
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);
const optString = (v: unknown): boolean => v === undefined || typeof v === "string";

/** The claims the checks read, with their types; else what is wrong. */
function claimsProblem(p: Record<string, unknown>): string | undefined {
  if (typeof p.id !== "string" || p.id === "") return "id is not a non-empty string";
  if (typeof p.decision !== "string") return "decision is not a string";
  if (typeof p.tool !== "string") return "tool is not a string";
  if (!isInt(p.issuedAt)) return "issuedAt is not an integer";
  if (!isInt(p.expiresAt)) return "expiresAt is not an integer";
  for (const name of ["runId", "toolCallId", "executedFingerprint", "fingerprint"]) {
    if (!optString(p[name])) return `${name} is not a string`;
  }
  return undefined;
}

/**
 * Checks `receipt` (a compact JWS) for running `opts.tool` with `opts.args`, and on success records
 * its id as used in `opts.store`. Resolves `{ok: true, claims}` or `{ok: false, code, message}` with
 * the first failing check. Rejects only when it cannot decide: the key source or the store failed.
 */
export async function verifyReceipt(receipt: string, opts: VerifyOptions): Promise<VerifyResult> {
  // 1. Three base64url segments; header JSON with alg EdDSA, a string kid, typ approval-receipt.
  const parts = typeof receipt === "string" ? receipt.split(".") : [];
  if (parts.length !== 3) return refuse("malformed", "a receipt is three base64url segments separated by dots");
  const [h64, p64, s64] = parts as [string, string, string];
  const header = decodeJsonObject(h64);
  if (!header) return refuse("malformed", "the header is not base64url of a JSON object");
  if (header.alg !== "EdDSA") return refuse("malformed", `the header's alg is ${JSON.stringify(header.alg)}, not "EdDSA"`);
  if (typeof header.kid !== "string" || header.kid === "") return refuse("malformed", "the header has no string kid");
  if (header.typ !== undefined && header.typ !== "approval-receipt") {
    return refuse("malformed", `the header's typ is ${JSON.stringify(header.typ)}, not "approval-receipt"`);
  }
  const signature = decodeBase64url(s64);
  const payloadBytes = decodeBase64url(p64);
  if (!signature || !payloadBytes || p64 === "") return refuse("malformed", "the payload or signature is not base64url");
  const kid = header.kid;

  // 2. A key with that kid, kty OKP, crv Ed25519 (and a 32-byte x, else it cannot be used).
  const key: Jwk | undefined = isKeySource(opts.jwks) ? await opts.jwks.getKey(kid) : findKey(opts.jwks, kid);
  if (!key) return refuse("unknown_key", `no Ed25519 key with kid ${JSON.stringify(kid)} in the key set`);
  const x = typeof key.x === "string" ? decodeBase64url(key.x) : undefined;
  if (!x || x.length !== 32) return refuse("unknown_key", `the key ${JSON.stringify(kid)} has no 32-byte x`);

  // 3. The signature over the ASCII of header.payload.
  let valid = false;
  if (signature.length === 64) {
    try {
      const subtle = globalThis.crypto.subtle;
      const pub = await subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.x as string }, { name: "Ed25519" }, false, ["verify"]);
      valid = await subtle.verify({ name: "Ed25519" }, pub, signature, new TextEncoder().encode(`${h64}.${p64}`));
    } catch {
      valid = false; // a key WebCrypto will not import verifies nothing
    }
  }
  if (!valid) return refuse("bad_signature", `the signature does not verify with key ${JSON.stringify(kid)}`);

  // 4. The payload: a JSON object with version 1 (and the claims the checks read well typed).
  const payload = decodeJsonObject(p64);
  if (!payload) return refuse("malformed", "the payload is not a JSON object");
  if (!isInt(payload.version)) return refuse("malformed", "the payload has no integer version");
  if (payload.version !== 1) return refuse("unsupported_version", `receipt version ${payload.version} is not supported (1 is)`);
  const problem = claimsProblem(payload);
  if (problem) return refuse("malformed", `the payload's ${problem}`);
  const claims = payload as ReceiptClaims;

  // 5. A retired key verifies only what it signed before retiredAt.
  if (key.retiredAt !== undefined) {
    if (typeof key.retiredAt !== "number" || !Number.isFinite(key.retiredAt)) {
      return refuse("key_retired", `the key ${JSON.stringify(kid)} has an unreadable retiredAt`);
    }
    if (claims.issuedAt > key.retiredAt) {
      return refuse("key_retired", `key ${JSON.stringify(kid)} was retired at ${key.retiredAt}, the receipt claims issuedAt ${claims.issuedAt}`);
    }
  }

  // 6. Not expired.
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (!(now < claims.expiresAt)) return refuse("expired", `the receipt expired at ${claims.expiresAt} (now ${now})`);

  // 7. A decision that lets the tool run.
  if (claims.decision !== "approved" && claims.decision !== "answered") {
    return refuse("not_approved", `the decision is ${JSON.stringify(claims.decision)}`);
  }

  // 8. This tool, and this call when the caller says which.
  if (claims.tool !== opts.tool) {
    return refuse("tool_mismatch", `the receipt is for tool ${JSON.stringify(claims.tool)}, not ${JSON.stringify(opts.tool)}`);
  }
  if (opts.runId !== undefined && claims.runId !== opts.runId) {
    return refuse("call_mismatch", `the receipt is for run ${JSON.stringify(claims.runId ?? null)}, not ${JSON.stringify(opts.runId)}`);
  }
  if (opts.toolCallId !== undefined && claims.toolCallId !== opts.toolCallId) {
    return refuse(
      "call_mismatch",
      `the receipt is for tool call ${JSON.stringify(claims.toolCallId ?? null)}, not ${JSON.stringify(opts.toolCallId)}`,
    );
  }

  // 9. The arguments about to run are the ones decided on: first that their fingerprint binds them
  // (no number a double cannot hold exactly: exact fingerprints), then the fingerprint itself.
  const ambiguous = inexactPaths(opts.args);
  if (ambiguous.length > 0) {
    return refuse(
      "ambiguous_arguments",
      `the arguments hold numbers a fingerprint cannot bind, at ${ambiguous.map((p) => JSON.stringify(p)).join(", ")}: no receipt holds for them`,
    );
  }
  let computed: string;
  try {
    computed = await fingerprint(opts.tool, opts.args);
  } catch (e) {
    return refuse("fingerprint_mismatch", `the arguments have no fingerprint: ${(e as Error).message}`);
  }
  if (claims.executedFingerprint !== computed) {
    return refuse(
      "fingerprint_mismatch",
      claims.executedFingerprint === undefined
        ? "the receipt has no executedFingerprint"
        : `the arguments' fingerprint ${computed} is not the receipt's ${claims.executedFingerprint}`,
    );
  }

  // 10. Not used before; recorded as used now, atomically.
  if (!(await opts.store.consume(claims.id, claims.expiresAt, now))) {
    return refuse("replayed", `receipt ${claims.id} was already used`);
  }
  return { ok: true, claims };
}
