/**
 * "Always allow" grants in words: the scope a grant made from a call covers, the conditions that can
 * be made from the call's top-level scalar arguments, lifetimes, and a stored grant's state.
 * Names and values here are untrusted: callers render the `value` parts through `MarkedText`.
 */
import type { ConditionOp, Grant, GrantCondition, GrantScope, QueueItem } from './backend/backend';
import { pointerToken } from './json-schema';

/** A piece of a sentence: fixed words, or a name/value from the engine (render it marked). */
export type Part = { text: string; untrusted?: boolean };

const u = (text: string): Part => ({ text, untrusted: true });
const w = (text: string): Part => ({ text });

export const SCOPES: { scope: GrantScope; label: string }[] = [
  { scope: 'run', label: 'This run' },
  { scope: 'agent', label: 'This agent' },
  { scope: 'engine', label: 'Every agent of this engine' },
];

/** What a grant of `scope` made from `item` covers: "every delete_record call of agent demo on engine local". */
export function scopePreview(item: Pick<QueueItem, 'toolName' | 'agentId' | 'engine' | 'runId'>, scope: GrantScope): Part[] {
  const head = [w('every '), u(item.toolName), w(' call ')];
  switch (scope) {
    case 'run':
      return [...head, w('of run '), u(item.runId), w(' (agent '), u(item.agentId), w(' on engine '), u(item.engine), w(')')];
    case 'agent':
      return [...head, w('of agent '), u(item.agentId), w(' on engine '), u(item.engine)];
    case 'engine':
      return [...head, w('of any agent on engine '), u(item.engine)];
  }
}

/** The same for a stored grant. */
export function grantScopeParts(g: Grant): Part[] {
  return scopePreview({ toolName: g.toolName, agentId: g.agentId ?? '', engine: g.engine, runId: g.runId ?? '' }, g.scope);
}

export const OP_WORDS: Record<ConditionOp, string> = { equals: 'equals', prefix: 'starts with', atMost: 'is at most', atLeast: 'is at least' };

/** A top-level scalar argument of a call, as a possible condition. */
export type Candidate = { key: string; pointer: string; value: string | number | boolean; ops: ConditionOp[] };

/** The call's top-level string, number and boolean arguments (objects, lists and nulls make no condition here). */
export function conditionCandidates(args: unknown): Candidate[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  const out: Candidate[] = [];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    const pointer = '/' + pointerToken(key);
    if (typeof value === 'string') out.push({ key, pointer, value, ops: ['equals', 'prefix'] });
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
  return [u(pointerLabel(c.pointer)), w(` ${OP_WORDS[c.op]} `), u(valueText(c.value))];
}

export const LIFETIMES: { label: string; secs: number }[] = [
  { label: '1 hour', secs: 3600 },
  { label: '8 hours', secs: 8 * 3600 },
  { label: '1 day', secs: 86_400 },
  { label: '7 days', secs: 7 * 86_400 },
];

export type GrantState = 'live' | 'expired' | 'revoked';

export function grantState(g: Grant, now: number = Date.now()): GrantState {
  if (g.revokedAt != null) return 'revoked';
  return Date.parse(g.expiresAt) <= now ? 'expired' : 'live';
}
