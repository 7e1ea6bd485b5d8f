// A file edit's row line and diff lines, from the server's `changes`, in both languages.
import { afterEach, describe, expect, it } from 'vitest';
import { changesLine, diffLines, type Changes, type FileChange } from './changes';
import { i18n } from './i18n/index.svelte';

const file = (over: Partial<FileChange>): FileChange => ({
  path: 'src/pay.py',
  action: 'edit',
  diff: '',
  added: 0,
  removed: 0,
  againstDisk: true,
  cut: false,
  ...over,
});
const one = (f: Partial<FileChange>): Changes => ({ summary: '', files: [file(f)], moreFiles: false });

afterEach(() => i18n.set('system'));

describe('changesLine', () => {
  it('says what one file edit does in words, by action and counts', () => {
    i18n.set('en');
    expect(changesLine(one({ added: 3, removed: 2 }))).toBe('edits 3 lines in src/pay.py');
    expect(changesLine(one({ added: 1 }))).toBe('adds 1 line to src/pay.py');
    expect(changesLine(one({ removed: 4 }))).toBe('removes 4 lines from src/pay.py');
    expect(changesLine(one({ action: 'create', added: 12 }))).toBe('creates src/pay.py (12 lines)');
    expect(changesLine(one({ action: 'delete' }))).toBe('deletes src/pay.py');
    expect(changesLine(one({ movedTo: 'src/payment.py' }))).toBe('moves src/pay.py to src/payment.py');
    expect(changesLine(one({ action: 'write', againstDisk: false, added: 2 }))).toBe('writes src/pay.py (2 lines, not compared with the file)');
    const many: Changes = { summary: '', files: [file({ added: 2, removed: 1 }), file({ path: 'b.py', added: 10 })], moreFiles: true };
    expect(changesLine(many)).toBe('edits more than 2 files (+12 −1)');
  });

  it('says it in Japanese too', () => {
    i18n.set('ja');
    expect(changesLine(one({ added: 3, removed: 2 }))).toBe('src/pay.py の 3 行を編集');
    expect(changesLine(one({ action: 'create', added: 1 }))).toBe('src/pay.py を作成（1 行）');
  });
});

describe('diffLines', () => {
  it('reads hunks, added, removed and context lines, and no trailing empty line', () => {
    expect(diffLines('@@ -1,2 +1,2 @@\n a\n-b\n+c\n')).toEqual([
      { kind: 'hunk', text: '@@ -1,2 +1,2 @@' },
      { kind: 'context', text: ' a' },
      { kind: 'removed', text: '-b' },
      { kind: 'added', text: '+c' },
    ]);
    expect(diffLines('')).toEqual([]);
  });
});
