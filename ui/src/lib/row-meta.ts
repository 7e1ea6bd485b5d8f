/**
 * What a queue row says besides the call itself: how long the call has waited ("4m ago", the
 * absolute time in its title), where the two-person rule stands ("1/2 · alice"), and which of its
 * states is an exception worth a badge. Pure: the row renders these as text.
 */
import type { QueueItem } from './backend/backend';
import { countdown } from './expiry';

/**
 * How long ago `iso` was, in the console's language and its shortest form (`now`, `4m ago`,
 * `2h ago`, `3d ago`; `今`, `4分前`); the input unchanged when it does not parse. A time in the
 * future (a clock ahead of this one) reads as now.
 */
export function ago(iso: string, now: number, language: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const secs = Math.max(0, Math.round((now - at) / 1000));
  const format = new Intl.RelativeTimeFormat(language, { style: 'narrow', numeric: 'auto' });
  if (secs < 45) return format.format(0, 'second');
  const mins = Math.round(secs / 60);
  if (mins < 60) return format.format(-mins, 'minute');
  const hours = Math.round(mins / 60);
  if (hours < 24) return format.format(-hours, 'hour');
  return format.format(-Math.round(hours / 24), 'day');
}

/** `alice (web)` → `alice`: a person's name without the way they came in (the title says it whole). */
export function personOf(operator: string): string {
  const m = /^(.*\S)\s+\([^()]*\)$/.exec(operator);
  return m ? m[1] : operator;
}

/**
 * A waiting call under the two-person rule: the approvals so far of how many, and who gave the
 * first (`{have: 1, need: 2, first: 'alice'}`); `null` for a call without a quorum or decided.
 */
export function quorumProgress(item: Pick<QueueItem, 'quorum' | 'approvals' | 'state' | 'decision'>): { have: number; need: number; first: string | null; all: string[] } | null {
  const need = item.quorum ?? 1;
  if (need <= 1 || item.state !== 'pending' || item.decision != null) return null;
  const all = (item.approvals ?? []).map((a) => a.operator);
  return { have: all.length, need, first: all.length ? personOf(all[0]) : null, all };
}

/** Sources whose calls an agent submitted itself (`POST /api/calls`): a call is a run of its own. */
export const SUBMITTED_SOURCES: readonly QueueItem['source'][] = ['http', 'claude-code', 'codex', 'gemini', 'mcp', 'acp', 'openai-agents', 'ai-sdk', 'adk', 'langchain'];

/** Whether an agent submitted the call itself: its run is this call alone (`sub_…`). */
export function submitted(item: Pick<QueueItem, 'source'>): boolean {
  return SUBMITTED_SOURCES.includes(item.source);
}

/** A pending call inside its time limit's warn window (its countdown is then worth a badge). */
export function nearExpiry(item: Pick<QueueItem, 'state' | 'expiresAt'>, now: number, warnBeforeSecs: number): boolean {
  if (item.state !== 'pending' || !item.expiresAt) return false;
  return countdown(item.expiresAt, now, warnBeforeSecs)?.warn ?? false;
}
