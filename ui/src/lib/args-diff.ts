/**
 * Edit-then-approve: the arguments as shown against the arguments as edited, as a unified diff of
 * their pretty-printed JSON (2-space indentation, object keys sorted, so that moving a key is no
 * change), for the confirm step (`ArgsDiff.svelte`). The diff itself is jsdiff's (`structuredPatch`),
 * with 3 lines of context. The lines are the values' text: shown as text, never as markup.
 */
import { structuredPatch } from 'diff';
import type { DiffLine } from './changes';
import { rawJson } from './json-text';

export type ArgsDiff = {
  /** Hunk headers (`@@ -a,b +c,d @@`) and the lines, each with its ' ', '-' or '+' prefix. */
  lines: DiffLine[];
  /** How many lines the edit adds and removes. */
  added: number;
  removed: number;
  /** Too many lines changed to compute the diff here (`MAX_EDIT`): `lines` is empty. */
  tooLarge: boolean;
};

/** Lines of context around each change. */
export const CONTEXT = 3;
/**
 * Past this many added plus removed lines jsdiff gives up (it answers `undefined`): a wholly
 * rewritten argument of thousands of lines would hold the window for seconds (with this cap, about
 * a quarter of a second on a fast machine); the time limit is a backstop for slower ones.
 */
export const MAX_EDIT = 2000;
const TIMEOUT_MS = 1000;

/** `value` as the diff compares it: pretty-printed JSON, keys sorted, ending with a newline. */
export function diffText(value: unknown): string {
  return rawJson(value, Infinity, { sortKeys: true }).text + '\n';
}

/** The unified diff of `before` (the arguments as shown) against `after` (as edited). */
export function argsDiff(before: unknown, after: unknown): ArgsDiff {
  const a = diffText(before);
  const b = diffText(after);
  if (a === b) return { lines: [], added: 0, removed: 0, tooLarge: false };
  const patch = structuredPatch('before', 'after', a, b, undefined, undefined, {
    context: CONTEXT,
    maxEditLength: MAX_EDIT,
    timeout: TIMEOUT_MS,
  });
  if (!patch) return { lines: [], added: 0, removed: 0, tooLarge: true };
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    // As unified diffs write it (and jsdiff's `formatPatch`): an empty side starts one line earlier.
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    lines.push({ kind: 'hunk', text: `@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@` });
    for (const text of h.lines) {
      // Both texts end with a newline, so jsdiff's "\ No newline at end of file" never comes.
      if (text.startsWith('+')) {
        added++;
        lines.push({ kind: 'added', text });
      } else if (text.startsWith('-')) {
        removed++;
        lines.push({ kind: 'removed', text });
      } else {
        lines.push({ kind: 'context', text });
      }
    }
  }
  return { lines, added, removed, tooLarge: false };
}
