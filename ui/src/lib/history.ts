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
