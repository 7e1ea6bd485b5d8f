import type { Decision } from './backend/backend';

/**
 * A decision taken but not yet delivered to its engine: it waits in the outbox (`pending`, e.g. the
 * engine was unreachable) or is being sent (`delivering`).
 */
export function awaitingDelivery(d: Decision | null | undefined): d is Decision {
  return d != null && (d.delivery === 'pending' || d.delivery === 'delivering');
}

/**
 * The decision whose delivery deserves a line under its call in the queue list: one waiting in
 * the outbox that was tried already, failed, or has a retry planned; else `null`.
 */
export function deliveryLine(d: Decision | null | undefined): Decision | null {
  return awaitingDelivery(d) && (d.attempts > 0 || d.lastError || d.nextAttemptAt) ? d : null;
}
