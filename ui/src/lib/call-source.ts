/**
 * Where a call comes from (`item.source`) and what an agent that submitted it said around it
 * (`item.context`). Pure, no HTML: the context is untrusted JSON the agent sent, read here only for
 * the few strings the console shows (as text, through `MarkedText`).
 */
import type { CallSource, QueueItem } from './backend/backend';

/** Every source, in the order the filter offers them (`satisfies`: a new one on the wire is a type error here). */
export const CALL_SOURCES = ['local', 'mastra', 'langgraph', 'ag-ui', 'a2a', 'http', 'claude-code', 'codex', 'gemini', 'mcp', 'acp', 'openai-agents', 'ai-sdk', 'adk', 'langchain'] as const satisfies readonly CallSource[];

// Fails to compile when the server's `CallSource` gains a value missing above.
const _everySource: Record<Exclude<CallSource, (typeof CALL_SOURCES)[number]>, never> = {};
void _everySource;

export function isCallSource(value: unknown): value is CallSource {
  return typeof value === 'string' && (CALL_SOURCES as readonly string[]).includes(value);
}

/** What a hook's context says that the detail shows: its working directory and its event, each when a non-empty string. */
export type HookContext = { cwd: string | null; event: string | null };

/** `cwd` and `event` of a call's context when it is a JSON object and they are non-empty strings; other keys and values are ignored. */
export function hookContextOf(item: Pick<QueueItem, 'context'>): HookContext {
  const c = item.context;
  if (c === null || typeof c !== 'object' || Array.isArray(c)) return { cwd: null, event: null };
  const { cwd, event } = c as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return { cwd: text(cwd), event: text(event) };
}

/** The kinds of choice an Agent Client Protocol agent offers (`PermissionOptionKind`). */
export type AgentOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** One choice an ACP agent offered with its permission request: its name (the agent's words) and kind. */
export type AgentOption = { name: string; kind: AgentOptionKind | null };

const OPTION_KINDS: readonly string[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

/**
 * The choices an Agent Client Protocol agent offered (`context.options` of an `acp` call), in its
 * order; `null` for another source or without any. A kind the protocol does not define is `null`
 * (the console never answers with it). At most 20, each name cut at 200 characters.
 */
export function agentOptionsOf(item: Pick<QueueItem, 'source' | 'context'>): AgentOption[] | null {
  const c = item.context;
  if (item.source !== 'acp' || c === null || typeof c !== 'object' || Array.isArray(c)) return null;
  const options = (c as Record<string, unknown>).options;
  if (!Array.isArray(options)) return null;
  const out = options
    .filter((o): o is Record<string, unknown> => o !== null && typeof o === 'object' && !Array.isArray(o))
    .slice(0, 20)
    .map((o) => ({
      name: typeof o.name === 'string' ? o.name.slice(0, 200) : '',
      kind: typeof o.kind === 'string' && OPTION_KINDS.includes(o.kind) ? (o.kind as AgentOptionKind) : null,
    }));
  return out.length ? out : null;
}

/**
 * The rationale of Codex's own reviewer when it denied the action this call shows (the app-server
 * bridge marks such a call `guardianDenied: true`; approving it overrides that one denial): `''`
 * when it gave none, `null` for every other call.
 */
export function reviewerDenialOf(item: Pick<QueueItem, 'source' | 'context'>): string | null {
  const c = item.context;
  if (item.source !== 'codex' || c === null || typeof c !== 'object' || Array.isArray(c)) return null;
  if (!Object.hasOwn(c, 'guardianDenied') || (c as Record<string, unknown>).guardianDenied !== true) return null;
  const reason = Object.hasOwn(c, 'reason') ? (c as Record<string, unknown>).reason : undefined;
  return typeof reason === 'string' ? reason : '';
}

/**
 * What a decline's reason becomes for a LangGraph Agent Inbox request (`suspendPayload.convention`
 * `agent-inbox`), as the server answers it: with `allow_respond` and `allow_ignore`, a reason is the
 * response and no reason ignores the request (`respond-or-ignore`); with only one of them, `respond` or
 * `ignore` (a reason then stays in the console's audit log). `null` for every other call.
 */
export type InboxDecline = 'respond-or-ignore' | 'respond' | 'ignore';

/** A LangGraph call's `suspendPayload` when it is a JSON object (what the server keeps of its interrupt); else `null`. */
function langgraphPayload(item: Pick<QueueItem, 'source' | 'suspendPayload'>): Record<string, unknown> | null {
  const p = item.suspendPayload;
  return item.source === 'langgraph' && p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : null;
}

export function inboxDeclineOf(item: Pick<QueueItem, 'source' | 'suspendPayload'>): InboxDecline | null {
  const { convention, config } = langgraphPayload(item) ?? {};
  if (convention !== 'agent-inbox' || config === null || typeof config !== 'object') return null;
  const { allow_respond: respond, allow_ignore: ignore } = config as Record<string, unknown>;
  if (respond === true && ignore === true) return 'respond-or-ignore';
  if (respond === true) return 'respond';
  if (ignore === true) return 'ignore';
  return null;
}

/**
 * How many requests the LangGraph interrupt of this call holds (`suspendPayload.count`, when more
 * than one): the graph takes all their answers at once, so a decided one is held until the others are
 * decided. `null` for an interrupt of one request and for every other call.
 */
export function interruptRequestsOf(item: Pick<QueueItem, 'source' | 'suspendPayload'>): number | null {
  const count = langgraphPayload(item)?.count;
  return typeof count === 'number' && Number.isInteger(count) && count > 1 ? count : null;
}

/**
 * What Claude Code's channel relay says of a call (`context` it or the console wrote): `previewOnly`,
 * a relayed prompt whose arguments are a preview cut short (an edit cannot reach Claude Code);
 * `viaChannel`, the hook's call a relayed prompt was joined into (its decision answers both).
 */
export type RelayMarks = { previewOnly: boolean; viaChannel: boolean };

export function relayMarksOf(item: Pick<QueueItem, 'source' | 'context'>): RelayMarks {
  const c = item.context;
  if (item.source !== 'claude-code' || c === null || typeof c !== 'object' || Array.isArray(c)) return { previewOnly: false, viaChannel: false };
  const { preview, channel } = c as Record<string, unknown>;
  return { previewOnly: preview === true, viaChannel: channel !== null && typeof channel === 'object' && !Array.isArray(channel) };
}
