import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore, fetchJwks, receiptHook } from "../src/index.ts";
import type { HookContext, RefusedOutput } from "../src/index.ts";
import { startConsole } from "./console.ts";
import { claims, fp, jwksOf, makeKey, receipt } from "./helpers.ts";

const key = makeKey();
const nowSecs = () => Math.floor(Date.now() / 1000);
const live = (over: Record<string, unknown> = {}) =>
  claims({ tool: "deleteRecord", executedFingerprint: fp("deleteRecord", { id: "rec-1" }), toolCallId: "call_a",
    issuedAt: nowSecs() - 5, expiresAt: nowSecs() + 3600, ...over });
const ctx = (toolCallId: string | undefined, input: unknown = { id: "rec-1" }, toolName = "deleteRecord"): HookContext => ({
  toolName, input, context: { toolCallId, messages: [], requestContext: undefined }, metadata: { agentId: "ops" },
});
const codeOf = (r: unknown) => (r as { output?: RefusedOutput } | undefined)?.output?.code ?? "proceed";

test("hook: a valid receipt lets the call proceed once; a replay, other args, no receipt are refused", async () => {
  const console_ = await startConsole();
  try {
    console_.jwks.keys.push(key.jwk);
    console_.receipts.set("call_a", receipt(key, live()));
    const refusals: RefusedOutput[] = [];
    const { beforeToolCall } = receiptHook({ consoleUrl: console_.url + "/", token: console_.token, store: new MemoryStore(),
      onRefuse: (r) => refusals.push(r) });
    assert.equal(await beforeToolCall(ctx("call_a")), undefined);
    const again = await beforeToolCall(ctx("call_a"));
    assert.deepEqual(again && { proceed: again.proceed, refused: again.output.refused, code: again.output.code }, { proceed: false, refused: true, code: "replayed" });
    const lookup = console_.requests.find((r) => r.path.startsWith("/api/receipts"));
    assert.equal(lookup?.path, "/api/receipts?toolCallId=call_a");
    assert.equal(lookup?.auth, `Bearer ${console_.token}`);

    console_.receipts.set("call_b", receipt(key, live({ toolCallId: "call_b" })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_b", { id: "rec-2" }))), "fingerprint_mismatch");
    assert.equal(codeOf(await beforeToolCall(ctx("call_b", { id: "rec-1" }, "dropTable"))), "tool_mismatch");
    // the receipt of another call, served for this one
    console_.receipts.set("call_c", receipt(key, live({ toolCallId: "call_b" })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_c"))), "call_mismatch");
    assert.equal(codeOf(await beforeToolCall(ctx("call_none"))), "no_receipt");
    assert.equal(codeOf(await beforeToolCall(ctx(undefined))), "no_receipt");
    assert.equal(refusals.length, 6);
    assert.equal(refusals[0]?.tool, "deleteRecord");
  } finally {
    await console_.close();
  }
});

test("hook: fails closed when the console is unreachable, refuses the token, or its key set lacks the key", async () => {
  const console_ = await startConsole();
  console_.receipts.set("call_a", receipt(key, live()));
  const hook = (token: string) => receiptHook({ consoleUrl: console_.url, token, store: new MemoryStore() }).beforeToolCall;
  assert.equal(codeOf(await hook("wrong")(ctx("call_a"))), "unavailable");
  assert.equal(codeOf(await hook(console_.token)(ctx("call_a"))), "unknown_key");
  await console_.close();
  assert.equal(codeOf(await hook(console_.token)(ctx("call_a"))), "unavailable");
});

test("hook: only the listed tools need a receipt; the run id is used when the caller supplies it", async () => {
  const console_ = await startConsole();
  try {
    console_.jwks.keys.push(key.jwk);
    console_.receipts.set("call_a", receipt(key, live({ runId: "run_7" })));
    const only = receiptHook({ consoleUrl: console_.url, token: console_.token, store: new MemoryStore(), tools: ["deleteRecord"] });
    assert.equal(await only.beforeToolCall(ctx("call_x", {}, "lookupRecord")), undefined);
    assert.equal(console_.requests.length, 0);
    const withRun = (runId: string) =>
      receiptHook({ consoleUrl: console_.url, token: console_.token, store: new MemoryStore(), runId: () => runId }).beforeToolCall;
    assert.equal(codeOf(await withRun("run_8")(ctx("call_a"))), "call_mismatch");
    assert.equal(console_.requests.findLast((r) => r.path.startsWith("/api/"))?.path, "/api/receipts?runId=run_8&toolCallId=call_a");
    assert.equal(codeOf(await withRun("run_7")(ctx("call_a"))), "proceed");
    // a run id in the hook's context (not in Mastra 1.71, maybe later) is used too
    const store = new MemoryStore();
    const h = receiptHook({ consoleUrl: console_.url, token: console_.token, store }).beforeToolCall;
    assert.equal(codeOf(await h({ ...ctx("call_a"), context: { toolCallId: "call_a", runId: "run_9" } })), "call_mismatch");
  } finally {
    await console_.close();
  }
});

test("hook: a key rotation is picked up by refetching the key set on an unknown kid", async () => {
  const console_ = await startConsole();
  try {
    const [a, b, c] = [makeKey(), makeKey(), makeKey()];
    console_.jwks.keys.push(a.jwk);
    const jwks = fetchJwks(`${console_.url}/.well-known/jwks.json`, { minRefetchSecs: 0 });
    const { beforeToolCall } = receiptHook({ consoleUrl: console_.url, token: console_.token, store: new MemoryStore(), jwks });
    const fetches = () => console_.requests.filter((r) => r.path === "/.well-known/jwks.json").length;
    console_.receipts.set("call_1", receipt(a, live({ toolCallId: "call_1" })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_1"))), "proceed");
    assert.equal(fetches(), 1);
    // rotate: b is the new key, a is retired
    console_.jwks.keys.splice(0, 1, { ...a.jwk, retiredAt: nowSecs() - 2 }, b.jwk);
    console_.receipts.set("call_2", receipt(b, live({ toolCallId: "call_2" })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_2"))), "proceed");
    assert.equal(fetches(), 2);
    // the refetched set says a is retired: what a signed before still passes, after it not
    console_.receipts.set("call_3", receipt(a, live({ toolCallId: "call_3", issuedAt: nowSecs() })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_3"))), "key_retired");
    console_.receipts.set("call_5", receipt(a, live({ toolCallId: "call_5", issuedAt: nowSecs() - 3 })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_5"))), "proceed");
    assert.equal(fetches(), 2); // known kids come from the cache
    console_.receipts.set("call_4", receipt(c, live({ toolCallId: "call_4" })));
    assert.equal(codeOf(await beforeToolCall(ctx("call_4"))), "unknown_key");
    assert.equal(fetches(), 3);
  } finally {
    await console_.close();
  }
});

// A real Mastra Agent (the fixture's @mastra/core 1.71): the hook really gets the tool call id and
// really keeps the tool from running.
const CORE = join(import.meta.dirname, "../../../tests/mastra-server/node_modules/@mastra/core/dist");
test("hook: inside a real Mastra agent", { skip: !existsSync(join(CORE, "agent/index.js")) && "Mastra fixture not installed" }, async () => {
  const { Agent } = await import(join(CORE, "agent/index.js"));
  const { createTool } = await import(join(CORE, "tools/index.js"));
  const console_ = await startConsole();
  try {
    console_.jwks.keys.push(key.jwk);
    const ran: unknown[] = [];
    const deleteRecord = createTool({ id: "deleteRecord", description: "delete", execute: async (input: unknown) => {
      ran.push(input);
      return { deleted: true };
    } });
    let calls = 0;
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const model = { specificationVersion: "v2", provider: "test", modelId: "m", supportedUrls: {},
      async doGenerate() {
        calls++;
        if (calls % 2 === 1) {
          return { content: [{ type: "tool-call", toolCallId: `call_m${calls}`, toolName: "deleteRecord", input: '{"id":"rec-1"}' }],
            finishReason: "tool-calls", usage, warnings: [] };
        }
        return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage, warnings: [] };
      },
      async doStream() { throw new Error("not used"); } };
    const hook = receiptHook({ consoleUrl: console_.url, token: console_.token, store: new MemoryStore() });
    const agent = new Agent({ id: "ops", name: "ops", instructions: "x", model, tools: { deleteRecord }, hooks: hook });
    // no receipt for call_m1 → refused, the tool does not run
    const r1 = await agent.generate("delete rec-1");
    assert.equal(ran.length, 0);
    assert.match(JSON.stringify(r1.toolResults), /no_receipt/);
    // a receipt for call_m3 → runs
    console_.receipts.set("call_m3", receipt(key, live({ toolCallId: "call_m3" })));
    await agent.generate("delete rec-1");
    assert.deepEqual(ran, [{ id: "rec-1" }]);
    assert.ok(console_.requests.some((r) => r.path === "/api/receipts?toolCallId=call_m3"));
  } finally {
    await console_.close();
  }
});
