/**
 * The audit view's words for what the log records in a developer's terms (issue 45): what became of
 * a decision ("handed to the agent", "the tool ran"), and a grant by what it allows rather than its
 * id. Pure: the engine's answers are untrusted and read defensively; callers render every `detail`
 * and name through `MarkedText`.
 */
import type { GrantName } from './backend/backend';
import type { DecisionRow } from './history';

/** What became of a delivered decision, in words the view has (`i18n` `audit.outcomes`). */
export type OutcomeKind =
  | 'handedOver'
  | 'ran'
  | 'declined'
  | 'blocked'
  | 'expired'
  | 'toolError'
  | 'suspended'
  | 'delegated'
  | 'sent'
  | 'held'
  | 'failed'
  | 'other';

/** Its kind, and what to show beside it (the tool's result, the agent's text, the error; `undefined`: nothing). */
export type Outcome = { kind: OutcomeKind; detail: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const STATUS: Record<string, OutcomeKind> = {
  executed: 'ran',
  declined: 'declined',
  blocked: 'blocked',
  expired: 'expired',
  'tool-error': 'toolError',
  suspended: 'suspended',
  delegated: 'delegated',
  delivered: 'sent',
  held: 'held',
  failed: 'failed',
};

/** The outcome of a decision's delivery (`null`: nothing delivered yet). */
export function outcomeOf(row: Pick<DecisionRow, 'delivery' | 'outcome' | 'error'>): Outcome | null {
  if (row.delivery === null) return null;
  if (row.error !== null) return { kind: 'failed', detail: row.error };
  const o = row.outcome;
  if (!isObject(o)) return o === undefined ? null : { kind: 'other', detail: o };
  if ('handedOver' in o) return { kind: 'handedOver', detail: undefined };
  const kind = typeof o.status === 'string' ? STATUS[o.status] : undefined;
  if (!kind) return { kind: 'other', detail: o };
  switch (kind) {
    case 'ran':
    case 'declined':
    case 'blocked':
    case 'expired':
    case 'toolError':
      return { kind, detail: o.result };
    case 'sent':
      return { kind, detail: typeof o.text === 'string' && o.text !== '' ? o.text : (o.error ?? undefined) };
    case 'failed':
      return { kind, detail: o.error };
    default:
      return { kind, detail: undefined };
  }
}

/** The id of the grant that decided, from its audit name (`grant g_… (made by …)`); `null` for anyone else. */
export function grantOfActor(actor: string): string | null {
  const m = /^grant (\S+)/.exec(actor);
  return m ? m[1] : null;
}

/** The grant named by the audit actor, when the page told what it allows. */
export function grantNamed(actor: string, grants: Record<string, GrantName> | undefined): GrantName | null {
  const id = grantOfActor(actor);
  return id !== null ? (grants?.[id] ?? null) : null;
}
