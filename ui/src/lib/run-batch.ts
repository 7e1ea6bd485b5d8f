/**
 * "Approve all" / "Decline all" of one run: one decision per call, each bound to the fingerprint
 * shown for that call (rule C3), sent one after another, each result reported on its own. Nothing
 * is retried and nothing is re-fetched first: a call that changed is refused by the server with
 * `fingerprint_mismatch`, like a single decision.
 */
import { ApiError, type Backend, type QueueItem } from './backend/backend';
import { checkFingerprint, type FingerprintCheck } from './fingerprint';
import { i18n } from './i18n/index.svelte';
import { awaitsDecision } from './triage';

export type BatchKind = 'approve' | 'decline';

export type BatchResult = {
  id: string;
  toolName: string;
  /** The fingerprint the decision was bound to: the one shown. */
  fingerprint: string;
} & ({ ok: true; item: QueueItem } | { ok: false; error: ApiError; sent: boolean });

/** A call of a batch that was refused (`sent`) or not sent. */
export type BatchFailure = Extract<BatchResult, { ok: false }>;

/** The calls of `items` a batch of `kind` decides: those still waiting that allow it (a suspended call needs its own answer). */
export function batchTargets(items: readonly QueueItem[], kind: BatchKind): QueueItem[] {
  return items.filter((i) => awaitsDecision(i) && i.allowed.includes(kind));
}

/**
 * Decides each of `items` (as shown) in order. Before a call is sent its fingerprint is recomputed
 * here from the tool name and arguments shown, as the detail view does; a call whose fingerprint
 * does not match them is not sent (`fingerprint_mismatch_shown`), whatever the decision.
 */
export async function decideAll(
  backend: Backend,
  items: readonly QueueItem[],
  kind: BatchKind,
  opts: { reason?: string; check?: (item: QueueItem) => Promise<FingerprintCheck['status']>; onResult?: (r: BatchResult) => void } = {},
): Promise<BatchResult[]> {
  const check = opts.check ?? (async (i: QueueItem) => (await checkFingerprint(i.toolName, i.args, i.fingerprint)).status);
  const results: BatchResult[] = [];
  for (const shown of items) {
    const base = { id: shown.id, toolName: shown.toolName, fingerprint: shown.fingerprint };
    let result: BatchResult;
    if ((await check(shown)) === 'mismatch') {
      result = { ...base, ok: false, sent: false, error: new ApiError('fingerprint_mismatch_shown', i18n.m.queue.notSentMismatch) };
    } else {
      try {
        const item = kind === 'approve' ? await backend.approve(shown.id, shown.fingerprint) : await backend.decline(shown.id, shown.fingerprint, opts.reason);
        result = { ...base, ok: true, item };
      } catch (e) {
        result = { ...base, ok: false, sent: true, error: ApiError.from(e) };
      }
    }
    results.push(result);
    opts.onResult?.(result);
  }
  return results;
}
