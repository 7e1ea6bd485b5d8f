/**
 * A decision of the audit log as the history view shows it. The entries' `details` are whatever the
 * console recorded (and untrusted engine data inside it): every field is read defensively.
 */
import type { DecisionRecord } from './backend/backend';

export type DecisionRow = {
  /** `approve`, `decline`, `resume`, `expire` (the action after `decision.`). */
  verdict: string;
  /** The operator's reason for a decline, or what an expiry told the model. */
  reason: string | null;
  /** Resume data, when the call was answered. */
  data: unknown;
  /** The arguments decided on. */
  args: unknown;
  /** `delivered`, `failed`, `deferred`, `retry`, `interrupted` (after `delivery.`); `null`: nothing delivered yet. */
  delivery: string | null;
  deliveredAt: string | null;
  /** What the engine answered (the tool's result, a decline, a block…). */
  outcome: unknown;
  error: string | null;
};

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function decisionRow(r: DecisionRecord): DecisionRow {
  const details = r.decision.details;
  const verdict = field(details, 'verdict');
  const d = r.delivery ?? null;
  return {
    verdict: r.decision.action.replace(/^decision\./, ''),
    reason: text(field(verdict, 'reason')),
    data: field(verdict, 'data'),
    args: field(details, 'args'),
    delivery: d ? d.action.replace(/^delivery\./, '') : null,
    deliveredAt: d?.at ?? null,
    outcome: d ? field(d.details, 'outcome') : undefined,
    error: d ? text(field(d.details, 'error')) : null,
  };
}

/** One line of compact JSON for a table cell, cut at `max` characters; `—` for nothing. */
export function preview(value: unknown, max = 120): string {
  if (value === undefined || value === null) return '—';
  let s: string;
  try {
    s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** One field of a change entry that differs: its value before and after (either may be absent). */
export type ChangedField = { field: string; before: unknown; after: unknown };

/**
 * What a change to the rules changed (`settings.changed`, `engine.*`, `credential.*` entries), for
 * the audit view: its subject and the top-level fields whose value differs. `null` for an entry of a
 * call (a pause, a decision, a delivery).
 */
export type RuleChange = {
  kind: 'setting' | 'engine' | 'credential';
  /** The setting's key (`quorum`, `safety`, `notifications`, `expiry`), the engine's or the credential's name. */
  subject: string;
  /** A credential's role. */
  role: string | null;
  /** What became of an engine's token (`set`, `replaced`, `kept`, `kept for the new URL`, `cleared`, `none`): never the token. */
  tokenChange: string | null;
  /** `added` (no before), `removed` (no after), else `changed`. */
  change: 'added' | 'changed' | 'removed';
  fields: ChangedField[];
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function ruleChange(action: string, details: unknown): RuleChange | null {
  const setting = text(field(details, 'setting'));
  const engine = text(field(details, 'engine'));
  const name = text(field(details, 'name'));
  let kind: RuleChange['kind'];
  let subject: string;
  if (action === 'settings.changed' && setting !== null) [kind, subject] = ['setting', setting];
  else if (action.startsWith('engine.') && engine !== null) [kind, subject] = ['engine', engine];
  else if (action.startsWith('credential.') && name !== null) [kind, subject] = ['credential', name];
  else return null;
  const before = field(details, 'before') ?? null;
  const after = field(details, 'after') ?? null;
  const fields: ChangedField[] = [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) if (!same(before[k], after[k])) fields.push({ field: k, before: before[k], after: after[k] });
  } else if (isObject(after) && before === null) {
    for (const k of Object.keys(after).sort()) fields.push({ field: k, before: undefined, after: after[k] });
  } else if (isObject(before) && after === null) {
    for (const k of Object.keys(before).sort()) fields.push({ field: k, before: before[k], after: undefined });
  }
  const change = /\.(removed|revoked)$/.test(action) ? 'removed' : /\.(added|created)$/.test(action) ? 'added' : 'changed';
  return { kind, subject, role: text(field(details, 'role')), tokenChange: text(field(details, 'tokenChange')), change, fields };
}
