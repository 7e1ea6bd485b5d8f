// An independent signer for the tests: node:crypto (not the WebCrypto the verifier uses), receipts
// built by hand as docs/receipts.md describes them.
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import type { KeyObject } from "node:crypto";

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  /** The key's JWKS entry. */
  jwk: { kty: string; crv: string; x: string; kid: string; alg: string; use: string; createdAt: number; retiredAt?: number };
}

export const b64u = (data: string | Uint8Array): string => Buffer.from(data).toString("base64url");

export function makeKey(createdAt = 1_700_000_000): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = publicKey.export({ format: "jwk" }).x as string;
  const raw = Buffer.from(x, "base64url");
  const kid = "ed25519-" + createHash("sha256").update(raw).digest("hex").slice(0, 16);
  return { kid, privateKey, jwk: { kty: "OKP", crv: "Ed25519", x, kid, alg: "EdDSA", use: "sig", createdAt } };
}

/** JSON with object keys sorted (what JCS does for the ASCII keys and simple values used here). */
export function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The fingerprint, computed here with node:crypto over hand-sorted JSON. */
export const fp = (tool: string, args: unknown): string =>
  "sha256:" + createHash("sha256").update(sortedJson({ toolName: tool, args })).digest("hex");

export const NOW = 1_764_949_900;
export const TOOL = "delete_record";
export const ARGS = { id: "rec-1" };

let counter = 0;
export function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    version: 1,
    id: "rct_" + createHash("md5").update(`${process.pid}-${counter}-${Math.random()}`).digest("hex"),
    decision: "approved",
    edited: false,
    fingerprint: fp(TOOL, ARGS),
    executedFingerprint: fp(TOOL, ARGS),
    tool: TOOL,
    source: "mastra",
    engine: "mastra-test",
    agent: "ops",
    runId: "run_1",
    toolCallId: "call_1",
    callId: "itm_1",
    approvers: ["local:admin"],
    policyVersion: "pv_1",
    issuedAt: NOW - 100,
    expiresAt: NOW + 3500,
    ...over,
  };
}

export function signRaw(headerText: string, payloadText: string, key: TestKey): string {
  const input = `${b64u(headerText)}.${b64u(payloadText)}`;
  return `${input}.${b64u(sign(null, Buffer.from(input, "ascii"), key.privateKey))}`;
}

/** A receipt over `claims` (sorted JSON), with header fields overridable. */
export function receipt(key: TestKey, body: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const h = { alg: "EdDSA", kid: key.kid, typ: "approval-receipt", ...header };
  return signRaw(sortedJson(h), sortedJson(body), key);
}

export const jwksOf = (...keys: TestKey[]) => ({ keys: keys.map((k) => k.jwk) });
