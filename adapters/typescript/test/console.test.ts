// The shared client's refusals, against a real `approval-console serve`: what fails closed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ApprovalConsole, idempotencyKey } from "../src/console.ts";
import type { CallRequest } from "../src/console.ts";
import { startConsole } from "./console.ts";
import type { TestConsole } from "./console.ts";

let consoleServer: TestConsole;

before(async () => {
  consoleServer = await startConsole("ops-bot");
});
after(() => consoleServer?.stop());

const call = (id: string): CallRequest => ({
  source: "openai-agents",
  tool: "delete_record",
  args: { id },
  thread: "t-console",
  context: { toolCallId: `call_${id}` },
  key: idempotencyKey("openai-agents", "t-console", `call_${id}`),
});

const client = (options: Partial<ConstructorParameters<typeof ApprovalConsole>[0]> = {}) =>
  new ApprovalConsole({ url: consoleServer.url, token: consoleServer.agentToken, agent: "ops-bot", timeoutMs: 20_000, ...options });

test("an approval whose receipt is signed by a key the adapter does not trust is refused", async () => {
  const other = { keys: [{ kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", kid: "ed25519-0000000000000000" }] };
  const deciding = client({ jwks: other }).decide(call("rec-k"));
  await consoleServer.approve(await consoleServer.waitForRow("delete_record", { id: "rec-k" }));
  const decision = await deciding;
  assert.equal(decision.approved, false);
  assert.equal(!decision.approved && decision.outcome, "refused");
  assert.match(!decision.approved ? decision.reason : "", /receipt is refused \(unknown_key\)/);
});

test("a receipt runs the tool once: the second confirmation of one approval is refused as replayed", async () => {
  const adapter = client();
  const deciding = adapter.decide(call("rec-r"));
  await consoleServer.approve(await consoleServer.waitForRow("delete_record", { id: "rec-r" }));
  assert.equal((await deciding).approved, true);
  assert.equal((await adapter.confirm(call("rec-r"))).approved, true);
  const again = await adapter.confirm(call("rec-r"));
  assert.equal(again.approved, false);
  assert.match(!again.approved ? again.reason : "", /\(replayed\)/);
});

test("a call never asked about is not confirmed, and leaves nothing in the queue", async () => {
  const decision = await client().confirm(call("rec-n"));
  assert.equal(decision.approved, false);
  const pending = await consoleServer.api("GET", "/api/queue?limit=100");
  assert.ok(!pending.body.items.some((i: any) => i.args?.id === "rec-n"), "a call nobody waits for is in the queue");
});

test("no decision before the deadline: refused as expired, and the call is withdrawn from the queue", async () => {
  const decision = await client({ timeoutMs: 1500, waitSecs: 1 }).decide(call("rec-t"));
  assert.equal(decision.approved, false);
  assert.equal(!decision.approved && decision.outcome, "expired");
  const row = await consoleServer.api("GET", `/api/queue/${!decision.approved ? decision.callId : ""}`);
  assert.notEqual(row.body.state, "pending");
  const pending = await consoleServer.api("GET", "/api/queue?limit=100");
  assert.ok(!pending.body.items.some((i: any) => i.args?.id === "rec-t"), "the call still waits in the queue");
});

test("a console that cannot be reached until the deadline: refused as unreachable", async () => {
  const decision = await client({ url: "http://127.0.0.1:9", timeoutMs: 1200 }).decide(call("rec-u"));
  assert.equal(decision.approved, false);
  assert.equal(!decision.approved && decision.outcome, "unreachable");
});
