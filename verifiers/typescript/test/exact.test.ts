import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { InexactNumber, MemoryStore, exactLiteral, inexactPaths, parseExact, verifyReceipt } from "../src/index.ts";
import type { VerifyResult } from "../src/index.ts";
import { NOW, TOOL, claims, jwksOf, makeKey, receipt } from "./helpers.ts";

test("integers a double holds and decimals in their shortest form are exact; their neighbours are not", () => {
  for (const text of ["0", "-0.0", "42", "1.5e3", "100e-2", "1152921504606846976", "1152921504606846976.0", "1e21", "1E+22",
    "0.1", "1e-7", "0.30000000000000004", "5e-324", "0e-99999999999999999999"]) {
    assert.equal(exactLiteral(text), true, text);
  }
  for (const text of ["9007199254740993", "1152921504606846977", "1152921504606847000", "1e23", "0.10000000000000001",
    "1.0000000000000000001", "1e400", "-1e400", "2e-324", "1e-99999999999999999999", "1".repeat(5000), "0x10", ""]) {
    assert.equal(exactLiteral(text), false, text);
  }
});

test("parseExact keeps what it cannot read exactly as written; inexactPaths names it", () => {
  const value = parseExact('{"a": 1152921504606846977, "b": [0.10000000000000001, 1e400], "c": 1.5e3, "d": 2, "e/f": 0.1}') as Record<string, unknown>;
  assert.ok(value.a instanceof InexactNumber);
  assert.equal((value.a as InexactNumber).literal, "1152921504606846977");
  assert.deepEqual([value.c, value.d, value["e/f"]], [1500, 2, 0.1]);
  assert.deepEqual(inexactPaths(value), ["/a", "/b/0", "/b/1"]);
  // Values: every finite number is a double already; a bigint only when a double holds it.
  assert.deepEqual(inexactPaths({ n: 2 ** 60, "a/b": [2n ** 60n, 2n ** 60n + 1n] }), ["/a~1b/1"]);
  assert.throws(() => parseExact("{not json"), SyntaxError);
});

// The console's canonical text of the approved call, by hand: RFC 8785 writes 2^60 as 1152921504606847000.
const APPROVED = '{"args":{"rate":0.1,"user_id":1152921504606847000},"toolName":"delete_record"}';
const FINGERPRINT = "sha256:" + createHash("sha256").update(APPROVED).digest("hex");

test("a receipt for 2^60 holds for no neighbour: 2^60 + 1 and 0.10000000000000001 are ambiguous_arguments", async () => {
  const key = makeKey();
  const signed = receipt(key, claims({ fingerprint: FINGERPRINT, executedFingerprint: FINGERPRINT }));
  const check = (args: unknown): Promise<VerifyResult> =>
    verifyReceipt(signed, { jwks: jwksOf(key), tool: TOOL, args, store: new MemoryStore(), now: NOW });
  const codeOf = (r: VerifyResult) => (r.ok ? "ok" : r.code);
  for (const args of [
    parseExact('{"user_id": 1152921504606846977, "rate": 0.1}'),
    parseExact('{"user_id": 1152921504606846976, "rate": 0.10000000000000001}'),
    { user_id: 2n ** 60n + 1n, rate: 0.1 },
  ]) {
    assert.equal(codeOf(await check(args)), "ambiguous_arguments", JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)));
  }
  // JSON.parse alone would have let the neighbour through: it reads 2^60 + 1 as 2^60.
  assert.equal(codeOf(await check(JSON.parse('{"user_id": 1152921504606846977, "rate": 0.1}'))), "ok");
  assert.equal(codeOf(await check(parseExact('{"rate": 1e-1, "user_id": 1152921504606846976.0}'))), "ok");
  assert.equal(codeOf(await check({ user_id: 2 ** 60, rate: 0.1 })), "ok");
});
