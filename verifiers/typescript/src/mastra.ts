// A Mastra `beforeToolCall` hook that runs a tool only with a valid receipt from the console.
//
//   const { beforeToolCall } = receiptHook({ consoleUrl, token, store: new SqliteStore("used.db"),
//                                            tools: ["deleteRecord"] });
//   new Agent({ …, hooks: { beforeToolCall } });
//
// What Mastra (1.71, `Agent#wrapToolWithHooks`) passes the hook: `{toolName, input, context,
// metadata: {agentId, agentName}}`, where `context` is the tool-call step's execution options
// `{abortSignal, toolCallId, messages, outputWriter, tracingContext, workspace, requestContext,
// actor, mcp, flushMessages, suspend, resumeData}`: the tool call id is `context.toolCallId`; the
// run id is NOT there (the tool's own execution context gets it later, as `runId`). So the run id is
// taken from the `runId` option when given, else from `context.runId` / `context.agent.runId` should
// a Mastra version provide them, else it is left out of the query and not checked.
import type { FetchLike, KeySource } from "./jwks.ts";
import { fetchJwks } from "./jwks.ts";
import type { ReceiptStore } from "./stores.ts";
import { verifyReceipt } from "./verify.ts";
import type { RefusalCode } from "./verify.ts";

/** What the hook gets (Mastra's `ToolHookContext`, structurally: no dependency on @mastra/core). */
export interface HookContext {
  toolName: string;
  input: unknown;
  context?: unknown;
  metadata?: Record<string, unknown>;
}

/** Why the hook refused: a verifier code, or `no_receipt` (the console has none for this call,
 * or the hook could not tell which call it is) or `unavailable` (the console, its key set or the
 * store could not be used). */
export type HookRefusalCode = RefusalCode | "no_receipt" | "unavailable";

/** The tool's output when the hook refuses to run it. */
export interface RefusedOutput {
  refused: true;
  code: HookRefusalCode;
  message: string;
  tool: string;
}

export interface ReceiptHookOptions {
  /** The console's base URL, e.g. `https://console.example:7070`. */
  consoleUrl: string;
  /** A console credential (an agent's token is enough), sent as `Authorization: Bearer`. */
  token: string;
  /** Where used receipt ids are recorded: shared by every process running these tools. */
  store: ReceiptStore;
  /** The fetch to use (default: the global one). */
  fetch?: FetchLike;
  /** The tools that need a receipt (names as the model sees them); default: every tool. */
  tools?: string[];
  /** The key set; default: `fetchJwks(consoleUrl + "/.well-known/jwks.json")`. */
  jwks?: KeySource;
  /** The run id of a call, when the caller knows where to find it (see the note above). */
  runId?: (ctx: HookContext) => string | undefined;
  /** Abort a request to the console after this many milliseconds (default 10000). */
  timeoutMs?: number;
  /** Called on every refusal (logging). */
  onRefuse?: (refusal: RefusedOutput, ctx: HookContext) => void;
}

export interface ReceiptHook {
  beforeToolCall(ctx: HookContext): Promise<void | { proceed: false; output: RefusedOutput }>;
}

const field = (obj: unknown, name: string): unknown =>
  typeof obj === "object" && obj !== null ? (obj as Record<string, unknown>)[name] : undefined;
const nonEmpty = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The tool call id Mastra gives the hook: `context.toolCallId` (or `context.agent.toolCallId`). */
export function toolCallIdOf(ctx: HookContext): string | undefined {
  return nonEmpty(field(ctx.context, "toolCallId")) ?? nonEmpty(field(field(ctx.context, "agent"), "toolCallId"));
}

/** The run id, if the hook's context carries one (Mastra 1.71's does not). */
export function runIdOf(ctx: HookContext): string | undefined {
  return nonEmpty(field(ctx.context, "runId")) ?? nonEmpty(field(field(ctx.context, "agent"), "runId"));
}

/** A `beforeToolCall` hook that fails closed: no valid, unused receipt → the tool does not run. */
export function receiptHook(opts: ReceiptHookOptions): ReceiptHook {
  const base = opts.consoleUrl.replace(/\/+$/, "");
  const doFetch = opts.fetch ?? (globalThis.fetch as unknown as FetchLike);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const jwks = opts.jwks ?? fetchJwks(`${base}/.well-known/jwks.json`, { fetch: doFetch, timeoutMs });
  const only = opts.tools ? new Set(opts.tools) : undefined;

  const refuse = (ctx: HookContext, code: HookRefusalCode, message: string) => {
    const output: RefusedOutput = {
      refused: true,
      code,
      message: `the approval console's receipt check refused ${ctx.toolName}: ${message}`,
      tool: ctx.toolName,
    };
    try {
      opts.onRefuse?.(output, ctx);
    } catch {
      // logging must not turn a refusal into something else
    }
    return { proceed: false as const, output };
  };

  async function check(ctx: HookContext) {
    const toolCallId = toolCallIdOf(ctx);
    if (!toolCallId) return refuse(ctx, "no_receipt", "the hook's context has no toolCallId");
    const runId = opts.runId ? opts.runId(ctx) : runIdOf(ctx);

    const query = new URLSearchParams();
    if (runId !== undefined) query.set("runId", runId);
    query.set("toolCallId", toolCallId);
    const url = `${base}/api/receipts?${query}`;
    let body: unknown;
    try {
      const res = await doFetch(url, {
        headers: { authorization: `Bearer ${opts.token}`, accept: "application/json" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status === 404) return refuse(ctx, "no_receipt", `the console has no receipt for call ${toolCallId}`);
      if (!res.ok) return refuse(ctx, "unavailable", `GET ${url}: HTTP ${res.status}`);
      body = await res.json();
    } catch (e) {
      return refuse(ctx, "unavailable", `GET ${url}: ${(e as Error).message}`);
    }
    const receipt = field(body, "receipt");
    if (typeof receipt !== "string") return refuse(ctx, "unavailable", `GET ${url}: the answer has no receipt`);

    let result;
    try {
      result = await verifyReceipt(receipt.trim(), {
        jwks,
        tool: ctx.toolName,
        args: ctx.input,
        ...(runId !== undefined ? { runId } : {}),
        toolCallId,
        store: opts.store,
      });
    } catch (e) {
      return refuse(ctx, "unavailable", (e as Error).message);
    }
    return result.ok ? undefined : refuse(ctx, result.code, result.message);
  }

  return {
    async beforeToolCall(ctx: HookContext) {
      if (only && !only.has(ctx.toolName)) return undefined;
      try {
        return await check(ctx);
      } catch (e) {
        return refuse(ctx, "unavailable", (e as Error)?.message ?? String(e)); // fail closed
      }
    },
  };
}
