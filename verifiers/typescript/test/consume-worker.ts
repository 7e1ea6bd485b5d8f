// A separate process consuming one id, for the cross-process store tests:
//   node consume-worker.ts STORE_SPEC ID EXPIRES_AT START_AT_MS  → prints true|false
import { openStore } from "../src/stores.ts";

const [spec, id, expiresAt, startAt] = process.argv.slice(2) as [string, string, string, string];
const store = openStore(spec);
await (store as { open?: () => Promise<void> }).open?.();
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
const used = await store.consume(id, Number(expiresAt));
await (store as { close?: () => Promise<void> }).close?.();
process.stdout.write(String(used));
