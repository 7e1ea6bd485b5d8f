// A file edit in its detail and its row: the diff line by line, as text, hidden characters marked;
// the summary in the row instead of the raw arguments.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody } from '../testing/mount';
import Detail from './Detail.svelte';

const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function render(item: QueueItem) {
  const backend = new FakeBackend();
  backend.add(item);
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
  flushSync();
  return target;
}

const edit = (over: Partial<QueueItem> = {}) =>
  makeItem({
    source: 'claude-code',
    toolName: 'Edit',
    args: { file_path: '/repo/src/pay.py', old_string: 'limit = 100', new_string: 'limit = 10_000' },
    changes: {
      summary: 'edits 1 line in src/pay.py',
      moreFiles: false,
      files: [
        {
          path: 'src/pay.py',
          action: 'edit',
          diff: '@@ -3,3 +3,3 @@\n def transfer(amount):\n-    limit = 100\n+    limit = 10_000 # <b>ok</b>\u202E\n     return send(amount)\n',
          added: 1,
          removed: 1,
          againstDisk: true,
          cut: false,
        },
      ],
    },
    ...over,
  });

describe('Changes in the detail', () => {
  it('shows each file with its counts and its diff line by line, as text, hidden characters marked', () => {
    const target = render(edit());
    const view = target.querySelector<HTMLElement>('[data-testid="changes"]')!;
    expect(text(view.querySelector('[data-testid="changes-summary"]'))).toBe('edits 1 line in src/pay.py');
    const f = view.querySelector<HTMLElement>('[data-testid="changes-file"]')!;
    expect([f.dataset.action, f.dataset.againstDisk]).toEqual(['edit', 'true']);
    expect(text(f.querySelector('[data-testid="changes-counts"]'))).toBe('+1 −1');
    const lines = [...f.querySelectorAll<HTMLElement>('[data-testid="changes-diff"] .line')];
    expect(lines.map((l) => l.dataset.kind)).toEqual(['hunk', 'context', 'removed', 'added', 'context']);
    const added = lines[3];
    expect(added.querySelector('b')).toBeNull();
    expect(added.textContent).toContain('<b>ok</b>');
    expect(added.querySelector('[data-mark="hidden"]')!.textContent).toBe('\\u{202E}');
    expect(added.textContent).not.toContain('\u202E');
    expect(view.querySelector('[data-testid="changes-cut"]')).toBeNull();
  });

  it('says when the diff is from the call only, why, and when it is cut', () => {
    const item = edit();
    const f = { ...item.changes!.files[0], againstDisk: false, cut: true, note: 'old_string is not in the file as read: the edit would fail' };
    const target = render({ ...item, changes: { ...item.changes!, files: [f] } });
    expect(target.querySelector<HTMLElement>('[data-testid="changes-file"]')!.dataset.againstDisk).toBe('false');
    expect(text(target.querySelector('[data-testid="changes-note"]'))).toContain('the edit would fail');
    expect(target.querySelector('[data-testid="changes-cut"]')).not.toBeNull();
  });

  it('is not there for a call that edits no file', () => {
    expect(render(makeItem()).querySelector('[data-testid="changes"]')).toBeNull();
  });
});
