import type { Decision } from './backend/backend';

/**
 * A decision taken but not yet delivered to its engine: it waits in the outbox (`pending`, e.g. the
 * engine was unreachable) or is being sent (`delivering`).
 */
export function awaitingDelivery(d: Decision | null | undefined): d is Decision {
  return d != null && (d.delivery === 'pending' || d.delivery === 'delivering');
}
