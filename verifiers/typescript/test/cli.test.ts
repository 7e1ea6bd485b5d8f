import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NOW, claims, fp, jwksOf, makeKey, receipt } from "./helpers.ts";

const CLI = join(import.meta.dirname, "..", "cli.ts");
const tmp = mkdtempSync(join(tmpdir(), "receipt-cli-"));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const key = makeKey();
const JWKS = join(tmp, "jwks.json");
writeFileSync(JWKS, JSON.stringify(jwksOf(key)));

function cli(args: string[], stdin: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--no-warnings", CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, out, err }));
    p.stdin.end(stdin);
  });
}

const base = (args: string) => ["verify", "--jwks", JWKS, "--tool", "delete_record", "--args", args, "--now", String(NOW)];

test("cli: a valid receipt prints ok and its claims, exit 0", async () => {
  const c = claims();
  const r = await cli([...base('{"id":"rec-1"}'), "--run-id", "run_1", "--tool-call-id", "call_1"], `\n  ${receipt(key, c)}\n`);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trim().split("\n").length, 1);
  assert.deepEqual(JSON.parse(r.out), { ok: true, claims: c });
});

test("cli: --args is read exactly: a number no fingerprint binds is ambiguous_arguments, exit 1", async () => {
  // The receipt of {"n": 2^60, "r": 0.1}: RFC 8785 writes that double 1152921504606847000.
  const canonical = '{"args":{"n":1152921504606847000,"r":0.1},"toolName":"delete_record"}';
  const fingerprint = "sha256:" + createHash("sha256").update(canonical).digest("hex");
  const signed = () => receipt(key, claims({ fingerprint, executedFingerprint: fingerprint }));
  for (const args of ['{"n": 1152921504606846977, "r": 0.1}', '{"n": 1152921504606847000, "r": 0.1}', '{"n": 1e400, "r": 0.1}',
    '{"n": 1152921504606846976, "r": 0.10000000000000001}']) {
    const r = await cli(base(args), signed());
    assert.equal(r.code, 1, `${args}: ${r.err}`);
    assert.equal(JSON.parse(r.out).code, "ambiguous_arguments", args);
  }
  const ok = await cli(base('{"n": 1152921504606846976, "r": 0.1}'), signed());
  assert.equal(ok.code, 0, ok.out + ok.err);
});

test("cli: refusals print ok:false with the code, exit 1", async () => {
  const cases: Array<[string[], string, string]> = [
    [base('{"id":"rec-2"}'), receipt(key, claims()), "fingerprint_mismatch"],
    [[...base('{"id":"rec-1"}'), "--tool-call-id", "call_9"], receipt(key, claims()), "call_mismatch"],
    [["verify", "--jwks", JWKS, "--tool", "delete_record", "--args", '{"id":"rec-1"}', "--now", String(NOW + 4000)], receipt(key, claims()), "expired"],
    [base('{"id":"rec-1"}'), receipt(makeKey(), claims()), "unknown_key"],
    [base('{"id":"rec-1"}'), "not a receipt", "malformed"],
    [base('{"id":"rec-1"}'), "", "malformed"],
    [base('{"id":"rec-1"}'), receipt(key, claims({ decision: "declined" })), "not_approved"],
  ];
  for (const [args, stdin, code] of cases) {
    const r = await cli(args, stdin);
    assert.equal(r.code, 1, `${code}: ${r.err}`);
    const out = JSON.parse(r.out);
    assert.equal(out.ok, false);
    assert.equal(out.code, code);
    assert.equal(typeof out.message, "string");
    assert.deepEqual(Object.keys(out), ["ok", "code", "message"]);
  }
});

for (const kind of ["file", "sqlite"]) {
  test(`cli: --store ${kind} keeps used ids across runs`, async () => {
    const spec = `${kind}:${join(tmp, `used-${kind}`)}`;
    const r = receipt(key, claims());
    const first = await cli([...base('{"id":"rec-1"}'), "--store", spec], r);
    assert.equal(first.code, 0, first.err);
    const second = await cli([...base('{"id":"rec-1"}'), "--store", spec], r);
    assert.equal(second.code, 1, second.err);
    assert.equal(JSON.parse(second.out).code, "replayed");
    // a memory store (the default) forgets
    assert.equal((await cli(base('{"id":"rec-1"}'), r)).code, 0);
  });
}

test("cli: --flag=value works; the args' key order does not matter", async () => {
  const args = { b: [1, 2], a: "x" };
  const c = claims({ executedFingerprint: fp("delete_record", args) });
  const r = await cli(["verify", `--jwks=${JWKS}`, "--tool=delete_record", '--args={"a":"x","b":[1,2]}', `--now=${NOW}`], receipt(key, c));
  assert.equal(r.code, 0, r.out + r.err);
});

test("cli: usage errors exit 2", async () => {
  const r0 = receipt(key, claims());
  const bad: string[][] = [
    [],
    ["check"],
    ["verify", "--tool", "t", "--args", "{}"],
    ["verify", "--jwks", JWKS, "--args", "{}"],
    ["verify", "--jwks", JWKS, "--tool", "t"],
    [...base("{not json")],
    [...base("{}"), "--now", "soon"],
    [...base("{}"), "--store", "redis:x"],
    [...base("{}"), "--bogus", "1"],
    [...base("{}"), "--run-id"],
    ["verify", "--jwks", join(tmp, "missing.json"), "--tool", "t", "--args", "{}"],
  ];
  for (const args of bad) {
    const r = await cli(args, r0);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}`);
    assert.equal(r.out, "");
    assert.notEqual(r.err, "");
  }
});
