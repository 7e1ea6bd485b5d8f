import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { FileStore, MemoryStore, SqliteStore, openStore, verifyReceipt } from "../src/index.ts";
import type { ReceiptStore } from "../src/index.ts";
import { ARGS, NOW, TOOL, claims, jwksOf, makeKey, receipt } from "./helpers.ts";

const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "receipt-stores-"));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const fresh = (kind: "memory" | "file" | "sqlite"): string =>
  kind === "memory" ? "memory" : `${kind}:${join(tmp, `${kind}-${++n}${kind === "sqlite" ? ".db" : ""}`)}`;

const closeAll = async (...stores: ReceiptStore[]) => {
  for (const s of stores) await (s as { close?: () => Promise<void> }).close?.();
};

for (const kind of ["memory", "file", "sqlite"] as const) {
  test(`${kind}: an id is consumed once`, async () => {
    const store = openStore(fresh(kind));
    assert.equal(await store.consume("rct_a", NOW + 60, NOW), true);
    assert.equal(await store.consume("rct_a", NOW + 60, NOW), false);
    assert.equal(await store.consume("rct_b", NOW + 60, NOW), true);
    await closeAll(store);
  });

  test(`${kind}: verifyReceipt refuses a replay`, async () => {
    const key = makeKey();
    const store = openStore(fresh(kind));
    const r = receipt(key, claims());
    const opts = { jwks: jwksOf(key), tool: TOOL, args: ARGS, store, now: NOW };
    assert.equal((await verifyReceipt(r, opts)).ok, true);
    const again = await verifyReceipt(r, opts);
    assert.equal(again.ok ? "ok" : again.code, "replayed");
    await closeAll(store);
  });

  test(`${kind}: records are pruned after expiresAt plus grace, not before`, async () => {
    const store = openStore(fresh(kind), { graceSecs: 10, pruneIntervalSecs: 0 });
    assert.equal(await store.consume("rct_old", 1000, 900), true);
    assert.equal(await store.consume("rct_new", 5000, 900), true);
    // at 1009 rct_old (expired at 1000) is still within grace
    assert.equal(await store.consume("rct_x", 5000, 1009), true);
    assert.equal(await store.consume("rct_old", 1000, 1009), false);
    // at 1010 it goes; rct_new stays
    assert.equal(await store.consume("rct_y", 5000, 1010), true);
    assert.equal(await store.consume("rct_old", 1000, 1010), true);
    assert.equal(await store.consume("rct_new", 5000, 1010), false);
    await closeAll(store);
  });
}

for (const kind of ["file", "sqlite"] as const) {
  test(`${kind}: two store instances on the same place count each other`, async () => {
    const spec = fresh(kind);
    const a = openStore(spec);
    const b = openStore(spec);
    assert.equal(await a.consume("rct_1", NOW + 60, NOW), true);
    assert.equal(await b.consume("rct_1", NOW + 60, NOW), false);
    assert.equal(await b.consume("rct_2", NOW + 60, NOW), true);
    assert.equal(await a.consume("rct_2", NOW + 60, NOW), false);
    // racing instances: exactly one wins each id
    const stores = [a, b, openStore(spec), openStore(spec)];
    for (let i = 0; i < 10; i++) {
      const results = await Promise.all(stores.map((s) => s.consume(`rct_race_${i}`, NOW + 60, NOW)));
      assert.equal(results.filter(Boolean).length, 1, `round ${i}: ${results}`);
    }
    await closeAll(...stores);
  });

  test(`${kind}: a replay through another store instance (another verifier) is refused`, async () => {
    const key = makeKey();
    const spec = fresh(kind);
    const [a, b] = [openStore(spec), openStore(spec)];
    const r = receipt(key, claims());
    const base = { jwks: jwksOf(key), tool: TOOL, args: ARGS, now: NOW };
    assert.equal((await verifyReceipt(r, { ...base, store: a })).ok, true);
    const again = await verifyReceipt(r, { ...base, store: b });
    assert.equal(again.ok ? "ok" : again.code, "replayed");
    await closeAll(a, b);
  });

  test(`${kind}: racing processes, exactly one consumes the id`, async () => {
    const spec = fresh(kind);
    await closeAll(openStore(spec)); // create the directory / database first
    if (kind === "sqlite") await (openStore(spec) as SqliteStore).open();
    const worker = join(import.meta.dirname, "consume-worker.ts");
    const startAt = String(Date.now() + 1500);
    // workers use the real clock: an expiresAt in the past would be pruned at once
    const expiresAt = String(Math.floor(Date.now() / 1000) + 3600);
    const outs = await Promise.all(
      [1, 2, 3, 4].map(() => run(process.execPath, ["--no-warnings", worker, spec, "rct_proc", expiresAt, startAt])),
    );
    const results = outs.map((o) => o.stdout.trim());
    assert.deepEqual(results.toSorted(), ["false", "false", "false", "true"], results.join(","));
  });
}

test("file: one file per id, named by its SHA-256, holding expiresAt", async () => {
  const dir = join(tmp, "file-layout");
  const store = new FileStore(dir);
  await store.consume("../../etc/passwd", 1234, 1000);
  const files = readdirSync(dir);
  assert.equal(files.length, 1);
  assert.match(files[0] as string, /^[0-9a-f]{64}$/);
});

test("memory: size counts the recorded ids", async () => {
  const store = new MemoryStore();
  await store.consume("rct_1", NOW + 1, NOW);
  await store.consume("rct_1", NOW + 1, NOW);
  assert.equal(store.size, 1);
});

test("openStore refuses unknown specs", () => {
  for (const bad of ["", "file:", "sqlite:", "redis://x", "Memory"]) assert.throws(() => openStore(bad), /unknown store/);
});
