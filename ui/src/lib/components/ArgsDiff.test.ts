// The diff of edit-then-approve's confirm step on its own: its lines, its counts, what it says when
// nothing changed or too much did, in both languages.
import { afterEach, describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { MAX_EDIT } from '../args-diff';
import { i18n } from '../i18n/index.svelte';
import { mountInBody } from '../testing/mount';
import ArgsDiff from './ArgsDiff.svelte';

afterEach(() => i18n.set('system'));

function render(before: unknown, after: unknown) {
  const { target } = mountInBody(ArgsDiff, { props: { before, after } });
  flushSync();
  return (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
}

describe('ArgsDiff', () => {
  it('shows each line with its kind, and the counts', () => {
    i18n.set('en');
    const q = render({ b: [1, 2], a: 'x' }, { a: 'x', b: [1, 3, 4] });
    const lines = [...q('edit-diff')!.querySelectorAll(':scope > .line')];
    expect(lines.map((l) => (l as HTMLElement).dataset.kind)).toEqual(['hunk', 'context', 'context', 'context', 'removed', 'added', 'added', 'context', 'context']);
    expect(lines.map((l) => l.className.replace(/\s*svelte-\S+/g, ''))).toContain('line removed');
    expect(lines[0].textContent).toBe('@@ -2,6 +2,7 @@');
    const counts = q('edit-diff-counts')!;
    expect([counts.dataset.added, counts.dataset.removed]).toEqual(['2', '1']);
    expect(counts.querySelector('[aria-hidden="true"]')!.textContent).toBe('+2 −1');
    expect(counts.querySelector('.visually-hidden')!.textContent).toBe('2 lines added, 1 line removed');
    expect(q('edit-diff-same')).toBeNull();
  });

  it('says so when the edited arguments are the same as shown (key order aside)', () => {
    i18n.set('en');
    const q = render({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 });
    expect(q('edit-diff')).toBeNull();
    expect(q('edit-diff-same')!.textContent).toBe('The edited arguments are the same as shown.');
    expect(q('edit-diff-counts')!.querySelector('[aria-hidden="true"]')!.textContent).toBe('+0 −0');
  });

  it('says so when too many lines changed to diff them', () => {
    i18n.set('en');
    const q = render(
      Array.from({ length: MAX_EDIT }, (_, i) => `a${i}`),
      Array.from({ length: MAX_EDIT }, (_, i) => `b${i}`),
    );
    expect(q('edit-diff')).toBeNull();
    expect(q('edit-diff-too-large')!.textContent).toContain('Too many lines changed');
  });

  it('speaks Japanese', () => {
    i18n.set('ja');
    let q = render({ a: 1 }, { a: 1 });
    expect(q('edit-diff-same')!.textContent).toBe('編集後の引数は表示中の引数と同じです。');
    q = render({ a: 1 }, { a: 2 });
    expect(q('edit-diff-view')!.textContent).toContain('編集内容');
    expect(q('edit-diff-counts')!.querySelector('.visually-hidden')!.textContent).toBe('1 行追加、1 行削除');
    expect(q('edit-diff')!.querySelector('[data-kind="added"] .visually-hidden')!.textContent).toBe('追加 ');
  });
});
