/**
 * The audit view's filters (issue 45): an action or a family of them, the agent and the source of
 * the call an entry is about, and a range of days (this browser's local days). As the server takes
 * them (`GET /api/audit`, `/api/audit/decisions`: `action`, `agent`, `source`, `from`, `until` as
 * RFC 3339 instants) and as a link keeps them (`toParams` / `fromParams`: the shell puts them in the
 * URL, so a reload or a shared link shows the same rows).
 */
import type { CallSource } from './backend/backend';
import { isCallSource } from './call-source';

export type AuditFilter = {
  /** `''` (any), a family (`decision`) or one action (`decision.approve`). */
  action: string;
  /** An agent's id, exactly; `''`: any. */
  agent: string;
  source: CallSource | '';
  /** The first local day kept (`YYYY-MM-DD`), `''`: no start. */
  from: string;
  /** The last local day kept (`YYYY-MM-DD`), `''`: no end. */
  until: string;
};

/** The decisions' actions, each a verdict. */
export const DECISION_ACTIONS = ['decision.approve', 'decision.edit', 'decision.decline', 'decision.resume', 'decision.expire'] as const;

/** The families of every entry's action (`call.paused` is of `call`), in the order they are offered. */
export const ACTION_FAMILIES = [
  'call',
  'decision',
  'approval',
  'delivery',
  'resolution',
  'grant',
  'settings',
  'policy',
  'engine',
  'credential',
  'device',
  'channel_secret',
  'reach',
  'receipt_key',
  'remote',
  'run',
  'tool',
] as const;

export function emptyAuditFilter(): AuditFilter {
  return { action: '', agent: '', source: '', from: '', until: '' };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a local day starts (`null`: not a day). */
function dayStart(day: string, plusDays = 0): string | null {
  if (!DAY.test(day)) return null;
  const [y, m, d] = day.split('-').map(Number);
  const t = new Date(y, m - 1, d + plusDays);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

/** The query the server takes: empty fields left out; `until` is the start of the day after the last one kept. */
export function toQuery(f: AuditFilter): { action?: string; agent?: string; source?: CallSource; from?: string; until?: string } {
  const q: ReturnType<typeof toQuery> = {};
  if (f.action) q.action = f.action;
  if (f.agent.trim()) q.agent = f.agent.trim();
  if (f.source) q.source = f.source;
  const from = dayStart(f.from);
  const until = dayStart(f.until, 1);
  if (from) q.from = from;
  if (until) q.until = until;
  return q;
}

/** Whether any filter is set. */
export function filtering(f: AuditFilter): boolean {
  return Object.keys(toQuery(f)).length > 0;
}

/** The filter as URL parameters (for a link): only those set, under short stable names. */
export function toParams(f: AuditFilter): URLSearchParams {
  const p = new URLSearchParams();
  if (f.action) p.set('action', f.action);
  if (f.agent.trim()) p.set('agent', f.agent.trim());
  if (f.source) p.set('source', f.source);
  if (DAY.test(f.from)) p.set('from', f.from);
  if (DAY.test(f.until)) p.set('until', f.until);
  return p;
}

/** A filter from URL parameters; what is not one (an unknown source, a day that is not `YYYY-MM-DD`) is left out. */
export function fromParams(p: URLSearchParams): AuditFilter {
  const f = emptyAuditFilter();
  const action = p.get('action') ?? '';
  if (/^[a-z_]+(\.[a-z_]+)?$/.test(action)) f.action = action;
  f.agent = (p.get('agent') ?? '').trim();
  const source = p.get('source') ?? '';
  if (isCallSource(source)) f.source = source;
  const from = p.get('from') ?? '';
  const until = p.get('until') ?? '';
  if (DAY.test(from)) f.from = from;
  if (DAY.test(until)) f.until = until;
  return f;
}
