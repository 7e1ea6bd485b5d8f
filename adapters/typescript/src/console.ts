// The client the adapters share: submit an SDK's tool call to the Approval Console (POST /api/calls
// under an Idempotency-Key made of the SDK's own ids), wait for the operator (the long poll
// GET /api/calls/{id}?waitSecs=N), and believe an approval only on its signed receipt
// (docs/receipts.md), checked against the exact tool and arguments the SDK is about to run.
// Every other answer — declined, expired, withdrawn, edited, no receipt or one that does not verify,
// a console that stays unreachable past the deadline — is a refusal with a reason: the tool never runs.
import { createHash } from "node:crypto";
import { MemoryStore, fetchJwks, verifyReceipt } from "../../../verifiers/typescript/src/index.ts";
import type { Jwks, KeySource, ReceiptStore } from "../../../verifiers/typescript/src/index.ts";

/** The console's address when neither the options nor `APPROVAL_CONSOLE_URL` name one. */
export const DEFAULT_URL = "http://127.0.0.1:4319";

/** The sources of the SDK adapters (the console's engine kinds for submitted calls). */
export type AdapterSource = "openai-agents" | "ai-sdk";

export interface ConsoleOptions {
  /** The console (default: `APPROVAL_CONSOLE_URL`, else http://127.0.0.1:4319). */
  url?: string;
  /** An agent credential (default: `APPROVAL_CONSOLE_AGENT_TOKEN`): `approval-console tokens add NAME --role agent`. */
  token?: string;
  /** The agent's name on the queue (default: the credential's own name decides, see `tokens add --agent`). */
  agent: string;
  /**
   * The receipt keys trusted: a pinned set (`approval-console receipt keys`) or a key source. Default:
   * the console's `/.well-known/jwks.json`, fetched when first needed.
   */
  jwks?: Jwks | KeySource;
  /**
   * Where used receipts are recorded, so that one approval runs a tool once (default: in memory,
   * this process only; `SqliteStore` from the verifier keeps them across restarts and processes).
   */
  store?: ReceiptStore;
  /** How long one call may wait for its decision, connection errors included (default 15 minutes). */
  timeoutMs?: number;
  /** Longest single long poll, seconds (default 25; the console holds at most 60). */
  waitSecs?: number;
  /** Longest pause between two tries at an unreachable console (default 5000 ms; the first is 250 ms). */
  maxBackoffMs?: number;
}

/** One tool call as the console is asked about it. */
export interface CallRequest {
  source: AdapterSource;
  /** The model's tool name, exactly. */
  tool: string;
  /** The model's arguments, exactly as the tool would run with them. */
  args: unknown;
  /** The conversation or run the call belongs to, shown on the queue. */
  thread?: string;
  /** What the SDK says around the call (its tool call id, the agent's stated reason): shown, never fingerprinted. */
  context?: Record<string, unknown>;
  /** The Idempotency-Key: the same SDK call always makes the same key ({@link idempotencyKey}). */
  key: string;
}

/** The console's answer for a call, once the adapter has judged it. */
export type Decision =
  | { approved: true; callId: string; receipt: string; receiptId: string }
  | { approved: false; callId?: string; reason: string; outcome: RefusalOutcome };

/**
 * Why a call does not run: the operator declined (`declined`, with the operator's reason) or nobody
 * decided in time (`expired`); the call left the queue (`withdrawn`); the approval could not be
 * believed (`refused`: edited arguments, no receipt, a receipt that does not verify, arguments that
 * changed since); the console could not be asked (`unreachable`, `error`).
 */
export type RefusalOutcome = "declined" | "expired" | "withdrawn" | "refused" | "unreachable" | "error";

interface CallStatus {
  id: string;
  outcome: "pending" | "approved" | "declined" | "answered" | "withdrawn";
  args: unknown;
  edited: boolean;
  reason: string | null;
  expired: boolean;
  receipt: string | null;
}

/** A stable Idempotency-Key from an SDK's own ids: the same ids give the same key, in any process. */
export function idempotencyKey(source: AdapterSource, ...ids: Array<string | undefined>): string {
  return `${source}:${createHash("sha256").update(JSON.stringify([source, ...ids.map((id) => id ?? null)])).digest("hex")}`;
}

/** A refusal the console answered with an HTTP error (not a connection error: those are retried). */
class ConsoleError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ApprovalConsole {
  readonly url: string;
  readonly agent: string;
  readonly #token: string;
  readonly #jwks: Jwks | KeySource;
  readonly #store: ReceiptStore;
  readonly #timeoutMs: number;
  readonly #waitSecs: number;
  readonly #maxBackoffMs: number;

  constructor(options: ConsoleOptions) {
    const url = (options.url ?? process.env.APPROVAL_CONSOLE_URL ?? DEFAULT_URL).trim().replace(/\/+$/, "");
    if (!/^https?:\/\//.test(url)) throw new Error(`the console's address ${JSON.stringify(url)} is not an http:// or https:// address`);
    const token = (options.token ?? process.env.APPROVAL_CONSOLE_AGENT_TOKEN ?? "").trim();
    if (!token) throw new Error("no agent credential: give `token` or APPROVAL_CONSOLE_AGENT_TOKEN (approval-console tokens add NAME --role agent)");
    this.url = url;
    this.agent = options.agent;
    this.#token = token;
    this.#jwks = options.jwks ?? fetchJwks(`${url}/.well-known/jwks.json`);
    this.#store = options.store ?? new MemoryStore();
    this.#timeoutMs = options.timeoutMs ?? 15 * 60_000;
    this.#waitSecs = Math.min(Math.max(options.waitSecs ?? 25, 0), 60);
    this.#maxBackoffMs = options.maxBackoffMs ?? 5000;
  }

  /**
   * Asks the console about `call` and waits for the operator's decision: approved only if the
   * operator approved these exact arguments (not an edit: the SDKs run the model's own arguments)
   * and the decision's signed receipt verifies for this tool and these arguments. The receipt is
   * checked here without being used up: {@link confirm} uses it where the tool runs.
   */
  async decide(call: CallRequest): Promise<Decision> {
    const deadline = Date.now() + this.#timeoutMs;
    let status: CallStatus;
    try {
      status = await this.#submit(call, deadline);
      while (status.outcome === "pending" && Date.now() < deadline) {
        const wait = Math.max(0, Math.min(this.#waitSecs, Math.floor((deadline - Date.now()) / 1000)));
        if (wait === 0) await sleep(Math.min(250, Math.max(0, deadline - Date.now()))); // the last second: no busy loop
        status = await this.#retrying(deadline, () => this.#api("GET", `/api/calls/${encodeURIComponent(status.id)}?waitSecs=${wait}`));
      }
    } catch (e) {
      return this.#failed(e);
    }
    if (status.outcome === "pending") {
      // Nobody decided in time: out of the queue, so nobody approves what will not run (a decision
      // made just now stands: 409, then read it).
      try {
        await this.#api("DELETE", `/api/calls/${encodeURIComponent(status.id)}`);
      } catch (e) {
        if (e instanceof ConsoleError && e.status === 409) {
          try {
            const now = await this.#api("GET", `/api/calls/${encodeURIComponent(status.id)}`);
            if (now.outcome !== "pending") return this.#judge(call, now, new MemoryStore());
          } catch {
            // fall through: no decision
          }
        }
      }
      return { approved: false, callId: status.id, outcome: "expired", reason: `no decision within ${Math.round(this.#timeoutMs / 1000)} s; the call was withdrawn from the queue` };
    }
    return this.#judge(call, status, new MemoryStore());
  }

  /**
   * Where the tool runs, just before it does: finds the call again by its key (the same request,
   * so arguments changed since the console was asked are refused as another call under that key)
   * and checks its receipt against the tool and the arguments about to run, recording it as used
   * (a receipt runs a tool once). Approved only then.
   */
  async confirm(call: CallRequest): Promise<Decision> {
    const deadline = Date.now() + this.#timeoutMs;
    let status: CallStatus;
    try {
      status = await this.#submit(call, deadline);
    } catch (e) {
      if (e instanceof ConsoleError && e.code === "idempotency_key_reused") {
        return { approved: false, outcome: "refused", reason: "the arguments about to run are not the ones the console was asked about" };
      }
      return this.#failed(e);
    }
    if (status.outcome === "pending") {
      // Never asked before (or still undecided): nobody should decide what is not waited for.
      await this.#api("DELETE", `/api/calls/${encodeURIComponent(status.id)}`).catch(() => undefined);
      return { approved: false, callId: status.id, outcome: "refused", reason: "the console has not approved this call" };
    }
    return this.#judge(call, status, this.#store);
  }

  /** The decision `status` is, for `call`: an approval only with a receipt that verifies (recorded in `store`). */
  async #judge(call: CallRequest, status: CallStatus, store: ReceiptStore): Promise<Decision> {
    const callId = status.id;
    const refused = (reason: string): Decision => ({ approved: false, callId, outcome: "refused", reason });
    switch (status.outcome) {
      case "approved":
        break;
      case "declined":
        return status.expired
          ? { approved: false, callId, outcome: "expired", reason: status.reason ?? "nobody decided in time" }
          : { approved: false, callId, outcome: "declined", reason: status.reason ?? "declined by the operator" };
      case "withdrawn":
        return { approved: false, callId, outcome: "withdrawn", reason: "the call was withdrawn from the queue" };
      default:
        return refused(`the console answered ${JSON.stringify(status.outcome)}, not an approval`);
    }
    if (status.edited) return refused("the operator edited the arguments, and this SDK runs only the model's own: ask again with the edit");
    if (!status.receipt) return refused("the approval came without a signed receipt");
    let checked;
    try {
      checked = await verifyReceipt(status.receipt, { jwks: this.#jwks, tool: call.tool, args: call.args, store });
    } catch (e) {
      return refused(`the receipt could not be checked: ${(e as Error).message}`);
    }
    if (!checked.ok) return refused(`the approval's signed receipt is refused (${checked.code}): ${checked.message}`);
    if (checked.claims.callId !== callId) return refused(`the receipt is for call ${checked.claims.callId}, not ${callId}`);
    if (checked.claims.edited) return refused("the receipt says the arguments were edited");
    return { approved: true, callId, receipt: status.receipt, receiptId: checked.claims.id };
  }

  #failed(e: unknown): Decision {
    if (e instanceof ConsoleError) return { approved: false, outcome: "error", reason: `the console refused the request (${e.code}): ${e.message}` };
    return { approved: false, outcome: "unreachable", reason: `the console at ${this.url} could not be reached in time: ${(e as Error).message}` };
  }

  /** POST /api/calls under the call's key: the call's status (a retry finds the same call). */
  async #submit(call: CallRequest, deadline: number): Promise<CallStatus> {
    const body = { tool: call.tool, args: call.args, agent: this.agent, thread: call.thread, source: call.source, context: call.context };
    const answer = await this.#retrying(deadline, () => this.#api("POST", "/api/calls", body, { "Idempotency-Key": call.key }));
    if (typeof answer?.id !== "string" || typeof answer?.status !== "object") throw new ConsoleError(502, "bad_answer", "the console's answer has no call");
    return answer.status as CallStatus;
  }

  /** `request`, again while the console cannot be reached (1/4 s, doubling up to the cap) or asks to wait (429), until `deadline`. */
  async #retrying(deadline: number, request: () => Promise<any>): Promise<any> {
    let pause = 250;
    for (;;) {
      try {
        return await request();
      } catch (e) {
        const retryAfter = e instanceof ConsoleError ? (e.status === 429 ? 1000 : undefined) : pause;
        if (retryAfter === undefined || Date.now() + retryAfter >= deadline) throw e;
        await sleep(retryAfter);
        if (!(e instanceof ConsoleError)) pause = Math.min(pause * 2, this.#maxBackoffMs);
      }
    }
  }

  async #api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const answer = await fetch(this.url + path, {
      method,
      headers: { Authorization: `Bearer ${this.#token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout((this.#waitSecs + 15) * 1000),
    });
    const text = await answer.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!answer.ok) throw new ConsoleError(answer.status, json?.code ?? `http_${answer.status}`, json?.message ?? text.slice(0, 200));
    return json;
  }
}
