// The console approves the OpenAI Agents SDK's `needsApproval` tools: the real @openai/agents (pinned)
// with its own scripted model (@openai/agents/testing), against a real `approval-console serve`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent, RunState, run, setTraceProcessors, tool } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents/testing";
import { z } from "zod";
import { OpenAIAgentsApprover } from "../src/openai-agents.ts";
import { startConsole } from "./console.ts";
import type { TestConsole } from "./console.ts";

setTraceProcessors([]); // trace ids (the runs' stable ids) without exporting them anywhere

let consoleServer: TestConsole;
let approver: OpenAIAgentsApprover;
const ran: string[] = [];

before(async () => {
  consoleServer = await startConsole("billing-bot");
  approver = new OpenAIAgentsApprover({ url: consoleServer.url, token: consoleServer.agentToken, agent: "billing-bot", thread: "conversation-1", timeoutMs: 20_000 });
});
after(() => consoleServer?.stop());

const deleteRecord = () =>
  approver.guard(
    tool({
      name: "delete_record",
      description: "Deletes a record",
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        ran.push(id);
        return `deleted ${id}`;
      },
    }),
  );

/** An agent whose model calls delete_record once with `id`, then answers with what the tool said. */
function agentCalling(id: string, callId: string) {
  const seen: unknown[] = [];
  const model = new ScriptedModel([
    [functionCall("delete_record", { id }, { callId })],
    modelResponder((call) => {
      seen.push(call.request.input);
      return [assistantMessage("done")];
    }),
  ]);
  return { agent: new Agent({ name: "billing", model, tools: [deleteRecord()] }), seen };
}

/** The text of the tool's output the model was shown on its second turn. */
function toolOutputSeen(seen: unknown[], callId: string): string {
  const items = seen.at(-1) as Array<any>;
  const out = items.find((i) => i.type === "function_call_result" && i.callId === callId);
  assert.ok(out, `the model saw no output for ${callId}: ${JSON.stringify(items)}`);
  return typeof out.output === "string" ? out.output : out.output.text;
}

test("an approved call runs exactly once, and its queue row shows soon after the SDK pauses", async () => {
  const { agent, seen } = agentCalling("rec-1", "call_a1");
  const paused = await run(agent, "delete rec-1");
  const pausedAt = performance.now();
  assert.equal(paused.interruptions.length, 1);
  const deciding = approver.decide(paused.state);
  const row = await consoleServer.waitForRow("delete_record", { id: "rec-1" });
  console.log(`openai-agents: pause to queue row ${(performance.now() - pausedAt).toFixed(1)} ms`);
  assert.equal(row.source, "openai-agents");
  assert.equal(row.context.toolCallId, "call_a1");
  await consoleServer.approve(row);
  const [decision] = await deciding;
  assert.equal(decision?.approved, true);
  const done = await run(agent, paused.state);
  assert.equal(done.finalOutput, "done");
  assert.deepEqual(ran.filter((id) => id === "rec-1"), ["rec-1"]);
  assert.equal(toolOutputSeen(seen, "call_a1"), "deleted rec-1");
});

test("a declined call never runs, and the model's next turn is told the operator's reason", async () => {
  const { agent, seen } = agentCalling("rec-2", "call_d1");
  const running = approver.run(agent, "delete rec-2");
  const row = await consoleServer.waitForRow("delete_record", { id: "rec-2" });
  await consoleServer.decline(row, "rec-2 is under legal hold");
  const done = await running;
  assert.equal(done.finalOutput, "done");
  assert.ok(!ran.includes("rec-2"), "the declined tool ran");
  assert.match(toolOutputSeen(seen, "call_d1"), /not run: rec-2 is under legal hold/);
});

test("arguments changed in the saved RunState after the approval are refused and never run", async () => {
  const { agent, seen } = agentCalling("rec-3", "call_c1");
  const paused = await run(agent, "delete rec-3");
  const deciding = approver.decide(paused.state);
  await consoleServer.approve(await consoleServer.waitForRow("delete_record", { id: "rec-3" }));
  assert.equal((await deciding)[0]?.approved, true);
  // The approved state is saved, and altered before it is resumed: the SDK would run rec-9.
  const saved = paused.state.toString();
  const altered = saved.replaceAll('\\"rec-3\\"', '\\"rec-9\\"');
  assert.notEqual(altered, saved);
  const resumed = await RunState.fromString(agent, altered);
  const done = await run(agent, resumed);
  assert.equal(done.finalOutput, "done");
  assert.ok(!ran.includes("rec-9") && !ran.includes("rec-3"), `ran ${JSON.stringify(ran)}`);
  assert.match(toolOutputSeen(seen, "call_c1"), /not run: the arguments about to run are not the ones the console was asked about/);
});

test("the console killed while a call waits and started again: the same call is found and answered once", async () => {
  const { agent } = agentCalling("rec-4", "call_k1");
  const paused = await run(agent, "delete rec-4");
  const saved = paused.state.toString();
  const deciding = approver.decide(paused.state);
  const before = await consoleServer.waitForRow("delete_record", { id: "rec-4" });
  await consoleServer.kill();
  await consoleServer.start();
  const row = await consoleServer.waitForRow("delete_record", { id: "rec-4" });
  assert.equal(row.id, before.id, "the call waits in the queue after the crash");
  await consoleServer.approve(row);
  const [decision] = await deciding;
  assert.equal(decision?.approved, true);
  assert.equal(decision?.approved && decision.callId, row.id);
  // A restarted agent process with only the saved RunState asks again: the same call, already decided.
  const restarted = new OpenAIAgentsApprover({ url: consoleServer.url, token: consoleServer.agentToken, agent: "billing-bot", thread: "conversation-1", timeoutMs: 20_000 });
  const state = await RunState.fromString(agent, saved);
  const [again] = await restarted.decide(state);
  assert.equal(again?.approved && again.callId, row.id);
  const done = await run(agent, state);
  assert.equal(done.finalOutput, "done");
  assert.deepEqual(ran.filter((id) => id === "rec-4"), ["rec-4"]);
  const all = await consoleServer.api("GET", "/api/queue?tab=all&limit=200");
  assert.equal(all.body.items.filter((i: any) => i.args?.id === "rec-4").length, 1, "one call on the console");
});
