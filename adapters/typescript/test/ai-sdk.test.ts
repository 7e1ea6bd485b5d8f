// The console answers the AI SDK's tool approval: the real `ai` 7 (pinned) with its own mock model
// (`ai/test`, scripted turns), against a real `approval-console serve`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateText, tool } from "ai";
import type { ModelMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { AiSdkApprover } from "../src/ai-sdk.ts";
import { startConsole } from "./console.ts";
import type { TestConsole } from "./console.ts";

let consoleServer: TestConsole;
let approver: AiSdkApprover;
const ran: string[] = [];

before(async () => {
  consoleServer = await startConsole("support-bot");
  approver = new AiSdkApprover({ url: consoleServer.url, token: consoleServer.agentToken, agent: "support-bot", thread: "chat-1", timeoutMs: 20_000 });
});
after(() => consoleServer?.stop());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that calls delete_record with `id` first, then answers "done"; `prompts` records what each turn was shown. */
function modelCalling(id: string, toolCallId: string) {
  const prompts: unknown[] = [];
  let turn = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      turn += 1;
      return turn === 1
        ? {
            content: [{ type: "tool-call", toolCallId, toolName: "delete_record", input: JSON.stringify({ id }) }],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          }
        : { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  return { model, prompts };
}

const tools = () =>
  approver.guard({
    delete_record: tool({
      description: "Deletes a record",
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        ran.push(id);
        return `deleted ${id}`;
      },
    }),
  });

/** One turn of the app: generate, keep the messages. */
async function generate(model: MockLanguageModelV4, messages: ModelMessage[]) {
  const result = await generateText({ model, tools: tools(), toolApproval: { delete_record: "user-approval" }, messages });
  messages.push(...result.responseMessages);
  return result;
}

/** The tool's output (or denial, or error) the model's last turn was shown for `toolCallId`. */
function toolResultSeen(prompts: unknown[], toolCallId: string): unknown {
  const prompt = prompts.at(-1) as Array<any>;
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    const part = message.content.find((p: any) => p.type === "tool-result" && p.toolCallId === toolCallId);
    if (part) return part.output;
  }
  assert.fail(`the model saw no result for ${toolCallId}: ${JSON.stringify(prompt)}`);
}

test("an approved call runs exactly once, and its queue row shows soon after the SDK pauses", async () => {
  const { model, prompts } = modelCalling("rec-1", "tc_a1");
  const messages: ModelMessage[] = [{ role: "user", content: "delete rec-1" }];
  const first = await generate(model, messages);
  const pausedAt = performance.now();
  assert.ok(first.content.some((p) => p.type === "tool-approval-request"));
  const answering = approver.answer(first);
  const row = await consoleServer.waitForRow("delete_record", { id: "rec-1" });
  console.log(`ai-sdk: pause to queue row ${(performance.now() - pausedAt).toFixed(1)} ms`);
  assert.equal(row.source, "ai-sdk");
  assert.equal(row.context.toolCallId, "tc_a1");
  await consoleServer.approve(row);
  const answer = await answering;
  assert.equal((answer?.content[0] as { approved: boolean }).approved, true);
  messages.push(answer!);
  const done = await generate(model, messages);
  assert.equal(done.text, "done");
  assert.deepEqual(ran.filter((id) => id === "rec-1"), ["rec-1"]);
  assert.deepEqual(toolResultSeen(prompts, "tc_a1"), { type: "text", value: "deleted rec-1" });
});

test("a declined call never runs, and the model's next turn is told the operator's reason", async () => {
  const { model, prompts } = modelCalling("rec-2", "tc_d1");
  const messages: ModelMessage[] = [{ role: "user", content: "delete rec-2" }];
  const first = await generate(model, messages);
  const answering = approver.answer(first);
  await consoleServer.decline(await consoleServer.waitForRow("delete_record", { id: "rec-2" }), "rec-2 is under legal hold");
  messages.push((await answering)!);
  const done = await generate(model, messages);
  assert.equal(done.text, "done");
  assert.ok(!ran.includes("rec-2"), "the declined tool ran");
  const seen = toolResultSeen(prompts, "tc_d1") as { type: string; reason?: string };
  assert.equal(seen.type, "execution-denied");
  assert.match(seen.reason ?? "", /not run: rec-2 is under legal hold/);
});

test("input changed in the messages after the approval is refused and never runs", async () => {
  const { model, prompts } = modelCalling("rec-3", "tc_c1");
  const messages: ModelMessage[] = [{ role: "user", content: "delete rec-3" }];
  const first = await generate(model, messages);
  const answering = approver.answer(first);
  await consoleServer.approve(await consoleServer.waitForRow("delete_record", { id: "rec-3" }));
  messages.push((await answering)!);
  // The approved conversation is altered before it continues: the SDK would run rec-9.
  const call = messages.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : [])).find((p) => p.type === "tool-call");
  assert.ok(call && call.type === "tool-call");
  call.input = { id: "rec-9" };
  const done = await generate(model, messages);
  assert.equal(done.text, "done");
  assert.ok(!ran.includes("rec-9") && !ran.includes("rec-3"), `ran ${JSON.stringify(ran)}`);
  const seen = toolResultSeen(prompts, "tc_c1") as { type: string; value?: unknown };
  assert.equal(seen.type, "error-text");
  assert.match(String(seen.value), /not run: the arguments about to run are not the ones the console was asked about/);
});

test("the console killed while a call waits and started again: the same call is found and answered once", async () => {
  const { model } = modelCalling("rec-4", "tc_k1");
  const messages: ModelMessage[] = [{ role: "user", content: "delete rec-4" }];
  const first = await generate(model, messages);
  const answering = approver.answer(first);
  const before = await consoleServer.waitForRow("delete_record", { id: "rec-4" });
  await consoleServer.kill();
  await consoleServer.start();
  const row = await consoleServer.waitForRow("delete_record", { id: "rec-4" });
  assert.equal(row.id, before.id, "the call waits in the queue after the crash");
  await consoleServer.approve(row);
  const answer = (await answering)!;
  assert.equal((answer.content[0] as { approved: boolean }).approved, true);
  // A restarted app process with only the saved messages asks again: the same call, already decided.
  const restarted = new AiSdkApprover({ url: consoleServer.url, token: consoleServer.agentToken, agent: "support-bot", thread: "chat-1", timeoutMs: 20_000 });
  const again = (await restarted.answer(first))!;
  assert.deepEqual(again, answer);
  messages.push(again);
  const done = await generate(model, messages);
  assert.equal(done.text, "done");
  assert.deepEqual(ran.filter((id) => id === "rec-4"), ["rec-4"]);
  const all = await consoleServer.api("GET", "/api/queue?tab=all&limit=200");
  assert.equal(all.body.items.filter((i: any) => i.args?.id === "rec-4").length, 1, "one call on the console");
});
