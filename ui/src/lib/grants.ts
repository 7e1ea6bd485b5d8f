/**
 * "Always allow" grants in words (in the console's language, read at each call): the scope a grant
 * made from a call covers, the conditions that can be made from the call's top-level scalar
 * arguments, lifetimes, and a stored grant's state.
 * Names and values here are untrusted: callers render the `value` parts through `MarkedText`.
 */
import type { ApiError, ConditionOp, Grant, GrantCondition, GrantScope, QueueItem, TooBroad } from './backend/backend';
import { i18n } from './i18n/index.svelte';
import { slots } from './i18n/words';
import { pointerToken } from './json-value';

/** A piece of a sentence: fixed words, or a name/value from the engine (render it marked). */
export type Part = { text: string; untrusted?: boolean };

const u = (text: string): Part => ({ text, untrusted: true });
const w = (text: string): Part => ({ text });

export const SCOPES: readonly GrantScope[] = ['run', 'agent', 'engine'];

/**
 * A message with `{places}` as parts: its words fixed, each place filled with the parts given for it
 * (a place without any is left out).
 */
export function fillParts(template: string, places: Record<string, Part[]>): Part[] {
  return slots(template).flatMap((s) => (s.slot === undefined ? [w(s.text)] : (places[s.slot] ?? [])));
}

/** What a grant of `scope` made from `item` covers: "every delete_record call of agent demo on engine local". */
export function scopePreview(item: Pick<QueueItem, 'toolName' | 'agentId' | 'engine' | 'runId'>, scope: GrantScope): Part[] {
  return fillParts(i18n.m.grants.scopeText[scope], {
    tool: [u(item.toolName)],
    run: [u(item.runId)],
    agent: [u(item.agentId)],
    engine: [u(item.engine)],
  });
}

/** The same for a stored grant. */
export function grantScopeParts(g: Grant): Part[] {
  return scopePreview({ toolName: g.toolName, agentId: g.agentId ?? '', engine: g.engine, runId: g.runId ?? '' }, g.scope);
}

/** How a comparison reads as a choice of the form: "starts with". */
export function opWord(op: ConditionOp): string {
  return i18n.m.grants.ops[op];
}

/** The comparisons a string argument offers; the last three take a text typed in the form. */
export const STRING_OPS: ConditionOp[] = ['equals', 'prefix', 'glob', 'regex'];

/** Whether a condition of `op` compares with a text typed in the form (not the call's own value). */
export function typedOp(op: ConditionOp): op is 'prefix' | 'glob' | 'regex' {
  return op === 'prefix' || op === 'glob' || op === 'regex';
}

/**
 * Whether `tool` is shell-like (it runs whatever command it is given), as the server reads it
 * (`domain::grant::shell_like`): a grant on it needs a condition, or the server refuses it.
 */
export function shellLike(tool: string): boolean {
  const t = tool.replace(/[A-Z]/g, (c) => c.toLowerCase()); // ASCII only, as Rust's to_ascii_lowercase
  return (
    ['bash', 'shell', 'exec', 'command', 'terminal', 'powershell', 'cmd', 'script'].some((w) => t.includes(w)) ||
    ['sh', 'zsh', 'fish', 'run', 'eval', 'system'].includes(t)
  );
}

/**
 * The server's `grant_too_broad` refusal of a grant's conditions: the argument it names (the
 * condition that matches nearly any text, or the command that needs a condition) and why.
 */
export function tooBroadAt(error: Pick<ApiError, 'code' | 'details'> | null | undefined): { pointer: string; reason: TooBroad } | null {
  const d = error?.code === 'grant_too_broad' ? (error.details as { pointer?: unknown; reason?: unknown } | null) : null;
  return d && typeof d.pointer === 'string' && (d.reason === 'matchesEverything' || d.reason === 'notOnCommand') ? { pointer: d.pointer, reason: d.reason } : null;
}

/** A top-level scalar argument of a call, as a possible condition. */
export type Candidate = { key: string; pointer: string; value: string | number | boolean; ops: ConditionOp[] };

/** The call's top-level string, number and boolean arguments (objects, lists and nulls make no condition here). */
export function conditionCandidates(args: unknown): Candidate[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  const out: Candidate[] = [];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    const pointer = '/' + pointerToken(key);
    if (typeof value === 'string') out.push({ key, pointer, value, ops: STRING_OPS });
    else if (typeof value === 'number') out.push({ key, pointer, value, ops: ['equals', 'atMost', 'atLeast'] });
    else if (typeof value === 'boolean') out.push({ key, pointer, value, ops: ['equals'] });
  }
  return out;
}

/** A JSON Pointer as an argument path for reading (`/to/account` → `to.account`). */
export function pointerLabel(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** A value as written in a condition: strings as they are, the rest as JSON. */
export function valueText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

/** "id equals rec-1" as parts. */
export function conditionParts(c: GrantCondition): Part[] {
  return fillParts(i18n.m.grants.conditionText[c.op], { key: [u(pointerLabel(c.pointer))], value: [u(valueText(c.value))] });
}

/** Conditions joined: "id equals rec-1 and amount is at most 100". */
export function conditionsParts(conditions: readonly GrantCondition[]): Part[] {
  return conditions.flatMap((c, i) => (i > 0 ? [w(i18n.m.grants.and), ...conditionParts(c)] : conditionParts(c)));
}

/** "Approves every … call … [when …], without asking." */
export function grantPreview(item: Pick<QueueItem, 'toolName' | 'agentId' | 'engine' | 'runId'>, scope: GrantScope, conditions: readonly GrantCondition[]): Part[] {
  const m = i18n.m.grants;
  return fillParts(conditions.length ? m.previewWhen : m.preview, { scope: scopePreview(item, scope), conditions: conditionsParts(conditions) });
}

/** How long a grant lasts, in seconds. */
export const LIFETIMES: readonly number[] = [3600, 8 * 3600, 86_400, 7 * 86_400];

/** A lifetime in words: "8 hours", "1 day". */
export function lifetimeLabel(secs: number): string {
  const m = i18n.m.grants;
  return secs % 86_400 === 0 ? m.days(secs / 86_400) : m.hours(secs / 3600);
}

export type GrantState = 'live' | 'expired' | 'revoked';

export function grantState(g: Grant, now: number = Date.now()): GrantState {
  if (g.revokedAt != null) return 'revoked';
  return Date.parse(g.expiresAt) <= now ? 'expired' : 'live';
}
