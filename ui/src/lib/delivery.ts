import type { Decision, EngineHealth } from './backend/backend';

/**
 * A decision taken but not yet delivered to its engine: it waits in the outbox (`pending`, e.g. the
 * engine was unreachable) or is being sent (`delivering`).
 */
export function awaitingDelivery(d: Decision | null | undefined): d is Decision {
  return d != null && (d.delivery === 'pending' || d.delivery === 'delivering');
}

const HEALTH_LABELS: Record<EngineHealth, string> = {
  unknown: 'unknown',
  reachable: 'reachable',
  unreachable: 'unreachable',
  auth_failed: 'auth failed',
  incompatible: 'incompatible',
};

/** How a remote engine's health state reads; an unknown value is shown as it came. */
export function healthLabel(state: string): string {
  return Object.hasOwn(HEALTH_LABELS, state) ? HEALTH_LABELS[state as EngineHealth] : state;
}
