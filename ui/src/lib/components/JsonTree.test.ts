import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { mountInBody } from '../testing/mount';
import JsonTree from './JsonTree.svelte';

function render(value: unknown) {
  const { target } = mountInBody(JsonTree, { props: { value, label: 'Arguments', testid: 'args-tree' } });
  flushSync();
  return target;
}

function deep(n: number): unknown {
  let root: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 0; i < n; i++) root = { next: root };
  return root;
}

describe('JsonTree', () => {
  it('renders hostile strings and keys as text, never as markup', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const el = render({ id: hostile, [hostile]: ['<script>alert(2)</script>'], nested: { href: 'javascript:alert(3)' } });
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('a')).toBeNull();
    expect(el.textContent).toContain(hostile);
    expect(el.textContent).toContain('<script>alert(2)</script>');
    expect(el.textContent).toContain('javascript:alert(3)');
  });

  it('mounts a 10,000-level deep object without throwing, rendering only the first levels', () => {
    const el = render(deep(10_000));
    const tree = el.querySelector('[data-testid="args-tree"]')!;
    expect(tree).not.toBeNull();
    // Root and depth 1 are open, depth 2 is a closed toggle: a handful of nodes, not 10,000.
    expect(tree.querySelectorAll('.node').length).toBeLessThan(10);
    const toggles = tree.querySelectorAll('button[aria-expanded]');
    expect([...toggles].map((t) => t.getAttribute('aria-expanded'))).toEqual(['true', 'true', 'false']);
  });

  it('opens a collapsed node on click, one level at a time', () => {
    const el = render(deep(50));
    const closed = el.querySelector('button[aria-expanded="false"]') as HTMLButtonElement;
    closed.click();
    flushSync();
    expect(closed.getAttribute('aria-expanded')).toBe('true');
    expect(el.querySelectorAll('button[aria-expanded="false"]').length).toBe(1);
  });

  it('folds long strings with their length and expands them on request', () => {
    const long = 'x'.repeat(1000) + 'END';
    const el = render({ s: long });
    expect(el.textContent).not.toContain('END');
    const btn = [...el.querySelectorAll('button')].find((b) => b.textContent?.includes('1,003'))!;
    expect(btn).toBeTruthy();
    btn.click();
    flushSync();
    expect(el.textContent).toContain(long);
  });

  it('shows the first 100 children of a huge array and more on request', () => {
    const el = render({ list: Array.from({ length: 250 }, (_, i) => `v${i}`) });
    // `{list: […]}` is one key: the list is the tree's first level (no toggle for the object around it).
    const items = () => el.querySelectorAll('ul > li').length;
    expect(items()).toBe(100);
    const more = [...el.querySelectorAll('button')].find((b) => b.textContent?.includes('show 100 more'))!;
    more.click();
    flushSync();
    expect(items()).toBe(200);
  });

  it('keeps the closing quote of a string that ends in a line break on its last line, the break shown as ↵', () => {
    const el = render({ note: 'lunch\n', crlf: 'a\r\n\r\n', inner: 'a\nb' });
    const strings = [...el.querySelectorAll('.str')];
    // The text of each string as shown, line breaks kept: none is left for a quote to dangle after.
    expect(strings.map((s) => (s as HTMLElement).textContent)).toEqual(['"lunch↵line break"', '"a↵line break↵line break"', '"a\nb"']);
    expect(el.querySelectorAll('[data-testid="string-end-break"]')).toHaveLength(3);
  });

  it('shows a tree of one key without the chrome of the object around it', () => {
    const one = render({ id: 'rec-1' });
    expect(one.querySelector('button.toggle')).toBeNull();
    expect(one.textContent!.replace(/\s+/g, ' ').trim()).toBe('id: "rec-1"');
    // Two keys, or one key deeper down: the toggles as before.
    expect(render({ id: 'a', b: 1 }).querySelector('button.toggle')).not.toBeNull();
    const nested = render({ a: { b: { c: 1 } } });
    expect([...nested.querySelectorAll('button.toggle')].map((b) => b.textContent!.replace(/\s+/g, ' ').trim())).toEqual(['▾ a: {1 key}', '▾ b: {1 key}']);
  });
});
