/**
 * Interrupted calls (the console stopped while their tool ran) and what the operator says became of
 * them: which resolutions a call offers, how its row tells it, and the result the operator typed
 * for "it ran". Pure functions; `InterruptedCall.svelte` and the queue rows show them.
 */
import type { QueueItem, ResolutionKind } from './backend/backend';

/** The resolutions in the order they are offered. */
export const RESOLUTION_KINDS: readonly ResolutionKind[] = ['ran', 'did_not_run', 'run_again'];

/** The resolutions this call offers now: those of `item.allowed`, for an interrupted call not resolved yet. */
export function resolutionsOffered(item: QueueItem): ResolutionKind[] {
  if (item.state !== 'interrupted' || item.resolution != null) return [];
  return RESOLUTION_KINDS.filter((k) => item.allowed.includes(k));
}

/** What a row says about an interrupted call: it needs the operator's word, or how it was resolved; `null` for other calls. */
export type RowResolution = 'needed' | ResolutionKind;

export function rowResolution(item: QueueItem): RowResolution | null {
  const r = item.resolution;
  if (r != null) return r.kind === 'ran' || r.kind === 'did_not_run' || r.kind === 'run_again' ? r.kind : null;
  return item.state === 'interrupted' ? 'needed' : null;
}

/**
 * The text typed as what the tool returned: nothing (only blanks) sends no result; text that is
 * JSON sends its value; any other text is sent as a string, as typed.
 */
export type TypedResult = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'text'; value: string };

export function typedResult(text: string): TypedResult {
  if (text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    return { kind: 'text', value: text };
  }
}
