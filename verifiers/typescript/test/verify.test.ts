import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, verifyReceipt } from "../src/index.ts";
import type { VerifyOptions, VerifyResult } from "../src/index.ts";
import { ARGS, NOW, TOOL, b64u, claims, fp, jwksOf, makeKey, receipt, signRaw, sortedJson } from "./helpers.ts";

const key = makeKey();
const other = makeKey();
const jwks = jwksOf(key, other);

function opts(over: Partial<VerifyOptions> = {}): VerifyOptions {
  return { jwks, tool: TOOL, args: ARGS, runId: "run_1", toolCallId: "call_1", store: new MemoryStore(), now: NOW, ...over };
}

function code(r: VerifyResult): string {
  return r.ok ? "ok" : r.code;
}

test("a valid receipt passes and returns its claims", async () => {
  const c = claims();
  const r = await verifyReceipt(receipt(key, c), opts());
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.ok && r.claims, c);
});

test("the same receipt passes when the caller expects no ids", async () => {
  const r = await verifyReceipt(receipt(key, claims()), opts({ runId: undefined, toolCallId: undefined }));
  assert.equal(code(r), "ok");
});

test("answered passes too; declined is not_approved", async () => {
  assert.equal(code(await verifyReceipt(receipt(key, claims({ decision: "answered" })), opts())), "ok");
  const declined = claims({ decision: "declined" });
  delete declined.executedFingerprint;
  assert.equal(code(await verifyReceipt(receipt(key, declined), opts())), "not_approved");
});

test("each tampered payload field breaks the signature", async () => {
  const c = claims();
  const good = receipt(key, c);
  const [h, , s] = good.split(".");
  const changes: Record<string, unknown> = {
    version: 2, id: "rct_00000000000000000000000000000000", decision: "answered", edited: true,
    fingerprint: fp(TOOL, { id: "x" }), executedFingerprint: fp(TOOL, { id: "x" }), tool: "drop_table",
    source: "local", engine: "e", agent: "boss", runId: "run_2", toolCallId: "call_2", callId: "itm_2",
    approvers: ["local:mallory"], policyVersion: "pv_2", issuedAt: NOW - 99, expiresAt: NOW + 99999,
  };
  for (const [name, value] of Object.entries(changes)) {
    assert.notDeepEqual(c[name], value, name);
    const forged = `${h}.${b64u(sortedJson({ ...c, [name]: value }))}.${s}`;
    assert.equal(code(await verifyReceipt(forged, opts())), "bad_signature", name);
  }
  const extra = `${h}.${b64u(sortedJson({ ...c, extra: 1 }))}.${s}`;
  assert.equal(code(await verifyReceipt(extra, opts())), "bad_signature");
  assert.equal(code(await verifyReceipt(good, opts())), "ok"); // and the original still passes
});

test("the header's kid: another known key → bad_signature, an unknown one → unknown_key", async () => {
  const c = claims();
  const [, p, s] = receipt(key, c).split(".");
  const withKid = (kid: string) => `${b64u(sortedJson({ alg: "EdDSA", kid, typ: "approval-receipt" }))}.${p}.${s}`;
  assert.equal(code(await verifyReceipt(withKid(other.kid), opts())), "bad_signature");
  assert.equal(code(await verifyReceipt(withKid("ed25519-0000000000000000"), opts())), "unknown_key");
  assert.equal(code(await verifyReceipt(receipt(key, c), opts({ jwks: jwksOf(other) }))), "unknown_key");
});

test("a key with the right kid but another kty/crv or no usable x is unknown_key", async () => {
  const c = receipt(key, claims());
  for (const jwk of [{ ...key.jwk, kty: "EC" }, { ...key.jwk, crv: "Ed448" }, { ...key.jwk, x: "AAAA" }, { ...key.jwk, x: undefined }]) {
    assert.equal(code(await verifyReceipt(c, opts({ jwks: { keys: [jwk] } }))), "unknown_key", JSON.stringify(jwk));
  }
});

test("a tampered or truncated signature is bad_signature", async () => {
  const good = receipt(key, claims());
  const [h, p, s] = good.split(".") as [string, string, string];
  const sig = Buffer.from(s, "base64url");
  sig[10] = (sig[10] as number) ^ 1;
  assert.equal(code(await verifyReceipt(`${h}.${p}.${b64u(sig)}`, opts())), "bad_signature");
  assert.equal(code(await verifyReceipt(`${h}.${p}.${b64u(sig.subarray(0, 63))}`, opts())), "bad_signature");
  assert.equal(code(await verifyReceipt(`${h}.${p}.`, opts())), "bad_signature");
  // signed by another key that claims this kid
  assert.equal(code(await verifyReceipt(receipt(other, claims(), { kid: key.kid }), opts())), "bad_signature");
});

test("malformed receipts", async () => {
  const good = receipt(key, claims());
  const [h, p, s] = good.split(".") as [string, string, string];
  const cases: Array<[string, string]> = [
    ["two segments", `${h}.${p}`],
    ["four segments", `${good}.${s}`],
    ["padding", `${h}=.${p}.${s}`],
    ["not base64url", `${h}.${p.replace(/.$/, "+")}.${s}`],
    ["header not JSON", `${b64u("{alg")}.${p}.${s}`],
    ["header an array", `${b64u("[]")}.${p}.${s}`],
    ["empty", ""],
  ];
  for (const [name, r] of cases) assert.equal(code(await verifyReceipt(r, opts())), "malformed", name);
  const headers: Array<Record<string, unknown>> = [{ alg: "HS256" }, { alg: undefined }, { kid: 7 }, { kid: undefined }, { typ: "JWT" }];
  for (const header of headers) {
    assert.equal(code(await verifyReceipt(receipt(key, claims(), header), opts())), "malformed", JSON.stringify(header));
  }
  // typ is optional
  assert.equal(code(await verifyReceipt(receipt(key, claims(), { typ: undefined }), opts())), "ok");
});

test("signed but malformed payloads; version other than 1 is unsupported_version", async () => {
  const hdr = sortedJson({ alg: "EdDSA", kid: key.kid, typ: "approval-receipt" });
  assert.equal(code(await verifyReceipt(signRaw(hdr, "[1]", key), opts())), "malformed");
  assert.equal(code(await verifyReceipt(signRaw(hdr, "{not json", key), opts())), "malformed");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ version: undefined })), opts())), "malformed");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ version: "1" })), opts())), "malformed");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ version: 2 })), opts())), "unsupported_version");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ expiresAt: "soon" })), opts())), "malformed");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ id: undefined })), opts())), "malformed");
});

test("a retired key: issued at or before retiredAt passes, after it key_retired", async () => {
  const retired = { ...key.jwk, retiredAt: NOW - 50 };
  const set = { keys: [retired] };
  assert.equal(code(await verifyReceipt(receipt(key, claims({ issuedAt: NOW - 51 })), opts({ jwks: set }))), "ok");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ issuedAt: NOW - 50 })), opts({ jwks: set }))), "ok");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ issuedAt: NOW - 49 })), opts({ jwks: set }))), "key_retired");
  const unreadable = { keys: [{ ...key.jwk, retiredAt: "yesterday" }] };
  assert.equal(code(await verifyReceipt(receipt(key, claims()), opts({ jwks: unreadable }))), "key_retired");
});

test("expired: now must be before expiresAt", async () => {
  const c = claims({ expiresAt: NOW + 10 });
  assert.equal(code(await verifyReceipt(receipt(key, c), opts({ now: NOW + 10 }))), "expired");
  assert.equal(code(await verifyReceipt(receipt(key, c), opts({ now: NOW + 9 }))), "ok");
  // without `now`, the real clock: a receipt from 2025 is long expired
  assert.equal(code(await verifyReceipt(receipt(key, claims()), opts({ now: undefined }))), "expired");
});

test("the tool name and the expected ids", async () => {
  assert.equal(code(await verifyReceipt(receipt(key, claims()), opts({ tool: "delete_records" }))), "tool_mismatch");
  assert.equal(code(await verifyReceipt(receipt(key, claims()), opts({ runId: "run_2" }))), "call_mismatch");
  assert.equal(code(await verifyReceipt(receipt(key, claims()), opts({ toolCallId: "call_2" }))), "call_mismatch");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ runId: undefined })), opts())), "call_mismatch");
  assert.equal(code(await verifyReceipt(receipt(key, claims({ toolCallId: undefined })), opts())), "call_mismatch");
});

test("the arguments: changed value, extra key, other type → fingerprint_mismatch; key order does not matter", async () => {
  const c = claims({ executedFingerprint: fp(TOOL, { id: "rec-1", opts: { a: 1, b: [true, null] } }) });
  const run = (args: unknown) => verifyReceipt(receipt(key, c), opts({ args }));
  assert.equal(code(await run({ id: "rec-2", opts: { a: 1, b: [true, null] } })), "fingerprint_mismatch");
  assert.equal(code(await run({ id: "rec-1", opts: { a: 1, b: [true, null] }, force: true })), "fingerprint_mismatch");
  assert.equal(code(await run({ id: "rec-1", opts: { a: "1", b: [true, null] } })), "fingerprint_mismatch");
  assert.equal(code(await run({ id: "rec-1" })), "fingerprint_mismatch");
  assert.equal(code(await run({ id: "rec-1", opts: { a: Infinity, b: [true, null] } })), "fingerprint_mismatch");
  assert.equal(code(await run({ opts: { b: [true, null], a: 1 }, id: "rec-1" })), "ok");
});

test("executedFingerprint, not fingerprint, is what must match (edited calls)", async () => {
  const edited = { id: "rec-9" };
  const c = claims({ edited: true, fingerprint: fp(TOOL, ARGS), executedFingerprint: fp(TOOL, edited) });
  assert.equal(code(await verifyReceipt(receipt(key, c), opts({ args: ARGS }))), "fingerprint_mismatch");
  assert.equal(code(await verifyReceipt(receipt(key, c), opts({ args: edited }))), "ok");
  const none = claims();
  delete none.executedFingerprint;
  assert.equal(code(await verifyReceipt(receipt(key, none), opts())), "fingerprint_mismatch");
});

test("replay: the second use of a receipt is refused", async () => {
  const store = new MemoryStore();
  const r = receipt(key, claims());
  assert.equal(code(await verifyReceipt(r, opts({ store }))), "ok");
  assert.equal(code(await verifyReceipt(r, opts({ store }))), "replayed");
  assert.equal(code(await verifyReceipt(r, opts({ store: new MemoryStore() }))), "ok");
});

test("the order of the checks; the id is consumed only after every other check passed", async () => {
  const store = new MemoryStore();
  const c = claims({ expiresAt: NOW + 10, tool: "other" });
  // expired (6) comes before tool_mismatch (8)
  assert.equal(code(await verifyReceipt(receipt(key, c), opts({ store, now: NOW + 20 }))), "expired");
  // not_approved (7) before tool_mismatch (8); key_retired (5) before expired (6)
  const d = claims({ decision: "declined", tool: "other", expiresAt: NOW - 1 });
  assert.equal(code(await verifyReceipt(receipt(key, d), opts({ store }))), "expired");
  assert.equal(code(await verifyReceipt(receipt(key, d), opts({ store, now: NOW - 5 }))), "not_approved");
  const retired = { keys: [{ ...key.jwk, retiredAt: NOW - 200 }] };
  assert.equal(code(await verifyReceipt(receipt(key, d), opts({ store, jwks: retired }))), "key_retired");
  // tool_mismatch (8) before fingerprint_mismatch (9)
  const good = receipt(key, claims());
  assert.equal(code(await verifyReceipt(good, opts({ store, tool: "x", args: { y: 1 } }))), "tool_mismatch");
  assert.equal(code(await verifyReceipt(good, opts({ store, toolCallId: "call_9", args: { y: 1 } }))), "call_mismatch");
  assert.equal(code(await verifyReceipt(good, opts({ store, args: { y: 1 } }))), "fingerprint_mismatch");
  assert.equal(store.size, 0);
  assert.equal(code(await verifyReceipt(good, opts({ store }))), "ok");
  assert.equal(code(await verifyReceipt(good, opts({ store }))), "replayed");
  // a replayed receipt that also fails an earlier check names the earlier check
  assert.equal(code(await verifyReceipt(good, opts({ store, tool: "x" }))), "tool_mismatch");
});
