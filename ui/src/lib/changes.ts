/**
 * What a file-editing call would change, as the server read it (`QueueItem.changes`): the row's line
 * in the console's language ("edits 3 lines in src/pay.py") and the diff's lines for the detail.
 * The paths and lines are the call's (and the file's) text: shown as text, never as markup.
 */
import type { components } from './backend/api.gen';
import { i18n } from './i18n/index.svelte';

export type Changes = components['schemas']['Changes'];
export type FileChange = components['schemas']['FileChange'];

/** One line for a row, like the server's `summary`, in the console's language. */
export function changesLine(c: Changes): string {
  const m = i18n.m.changes;
  const [f] = c.files;
  if (c.files.length === 1 && !c.moreFiles) {
    const p = f.path;
    if (f.action === 'delete') return m.deletes(p);
    if (f.action === 'create') return m.creates(f.added, p);
    if (f.added === 0 && f.removed === 0) return f.movedTo ? m.moves(p, f.movedTo) : m.nothing(p);
    if (f.action === 'write' && !f.againstDisk) return m.writesUncompared(Math.max(f.added, f.removed), p);
    if (f.removed === 0) return m.adds(f.added, p);
    if (f.added === 0) return m.removes(f.removed, p);
    return m.edits(Math.max(f.added, f.removed), p);
  }
  const added = c.files.reduce((n, x) => n + x.added, 0);
  const removed = c.files.reduce((n, x) => n + x.removed, 0);
  return m.files(c.files.length, added, removed, c.moreFiles);
}

export type DiffLine = { kind: 'hunk' | 'added' | 'removed' | 'context'; text: string };

/** A file's unified diff, line by line: hunk headers, added, removed and context lines. */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : 'context';
    out.push({ kind, text: line });
  }
  return out;
}
