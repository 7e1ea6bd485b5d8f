import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalize, fingerprint } from "../src/index.ts";

const DATA = join(import.meta.dirname, "../../../tests/data/jcs");

const vectors = readdirSync(join(DATA, "input")).filter((f) => f.endsWith(".json"));

test("the RFC 8785 vectors are there", () => {
  assert.ok(vectors.length >= 6, `only ${vectors.length} vectors in ${DATA}`);
});

for (const name of vectors) {
  test(`RFC 8785 vector ${name}`, () => {
    const input: unknown = JSON.parse(readFileSync(join(DATA, "input", name), "utf8"));
    const expected = readFileSync(join(DATA, "output", name));
    assert.equal(Buffer.compare(Buffer.from(canonicalize(input), "utf8"), expected), 0, canonicalize(input));
  });
}

test("RFC 8785 number serialization (numbers.txt)", () => {
  const lines = readFileSync(join(DATA, "numbers.txt"), "utf8").split("\n").filter((l) => l.trim() !== "");
  assert.ok(lines.length >= 20);
  const view = new DataView(new ArrayBuffer(8));
  for (const line of lines) {
    const [hex, expected] = line.trim().split(",") as [string, string];
    view.setBigUint64(0, BigInt("0x" + hex));
    const n = view.getFloat64(0);
    assert.equal(canonicalize(n), expected, line);
    assert.equal(canonicalize([n]), `[${expected}]`, line);
  }
});

test("member names sort by UTF-16 code units, not code points or locale", () => {
  // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FFFF and after U+00E9
  const obj = { "\uffff": 1, "\u{1F600}": 2, "\u00e9": 3, b: 4, B: 5, "": 6 };
  assert.equal(canonicalize(obj), '{"":6,"B":5,"b":4,"é":3,"😀":2,"\uffff":1}');
  assert.equal(canonicalize({ b: { d: 1, c: [{ z: 0, y: 1 }] }, a: null }), '{"a":null,"b":{"c":[{"y":1,"z":0}],"d":1}}');
});

test("strings: control characters, quotes, non-ASCII as RFC 8785 says", () => {
  assert.equal(canonicalize("\u0000\b\t\n\f\r\u001f\"\\/\u007f\u2028é"), '"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/\u007f\u2028é"');
  assert.equal(canonicalize(-0), "0");
});

test("values JSON cannot carry are refused", () => {
  for (const bad of [NaN, Infinity, -Infinity, 1n, () => 1, Symbol("s"), undefined, [undefined], new Date(0), new Map(), "\ud800", "a\udc00b"]) {
    assert.throws(() => canonicalize(bad), TypeError, String(typeof bad));
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => canonicalize(cyclic), TypeError);
  // an object member whose value is undefined is left out, as JSON.stringify does
  assert.equal(canonicalize({ a: undefined, b: 1 }), '{"b":1}');
  // a well-formed surrogate pair is fine; shared (not cyclic) references too
  const shared = { x: 1 };
  assert.equal(canonicalize({ p: shared, q: shared, s: "\u{1F600}" }), '{"p":{"x":1},"q":{"x":1},"s":"😀"}');
});

test("fingerprint of delete_record {id: rec-1} equals sha256sum of its JCS text", async () => {
  // printf '%s' '{"args":{"id":"rec-1"},"toolName":"delete_record"}' | sha256sum
  const expected = "sha256:812a02afcda74de8d149ee5b505b76abb97452e5085b05f50fff8ade6c053c7d";
  assert.equal(await fingerprint("delete_record", { id: "rec-1" }), expected);
  assert.notEqual(await fingerprint("delete_record", { id: "rec-2" }), expected);
  assert.notEqual(await fingerprint("delete_records", { id: "rec-1" }), expected);
});
