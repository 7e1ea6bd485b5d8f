// What Detail shows of a call's arguments and fingerprint (issue 6, "seeing exactly what will run").
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody } from '../testing/mount';
import Detail from './Detail.svelte';

/** The fingerprint the server computes, from its canonical text, by Node's SHA-256. */
const fingerprintOf = (canonical: string) => 'sha256:' + createHash('sha256').update(canonical, 'utf8').digest('hex');

function render(item: QueueItem) {
  const backend = new FakeBackend();
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, q, backend };
}

/** Waits (polling, with a deadline) until the fingerprint check has an answer, and returns it. */
async function checked(q: (id: string) => HTMLElement | null): Promise<HTMLElement> {
  await vi.waitFor(
    () => {
      flushSync();
      expect(q('fingerprint-check')!.dataset.status).not.toBe('checking');
    },
    { timeout: 5000, interval: 10 },
  );
  return q('fingerprint-check')!;
}

describe('Detail: fingerprint check', () => {
  it('says verified when the fingerprint is the one of the arguments shown', async () => {
    // The server's test vector: delete_record {"id":"rec-1"}.
    const item = makeItem({ args: { id: 'rec-1' }, fingerprint: fingerprintOf('{"args":{"id":"rec-1"},"toolName":"delete_record"}') });
    const { q } = render(item);
    const check = await checked(q);
    expect(check.dataset.status).toBe('verified');
    expect(check.textContent).toContain('verified');
    expect(check.getAttribute('role')).toBeNull();
  });

  it('flags a fingerprint that does not match the arguments shown', async () => {
    // The server bound the approval to rec-1, but the window is shown rec-2.
    const item = makeItem({ args: { id: 'rec-2' }, fingerprint: fingerprintOf('{"args":{"id":"rec-1"},"toolName":"delete_record"}') });
    const { q } = render(item);
    const check = await checked(q);
    expect(check.dataset.status).toBe('mismatch');
    expect(check.getAttribute('role')).toBe('alert');
    expect(check.textContent).toMatch(/fingerprint does not match the arguments shown/i);
    expect(check.textContent).toContain(fingerprintOf('{"args":{"id":"rec-2"},"toolName":"delete_record"}'));
  });

  it('c03 refuses to approve while the fingerprint does not match the arguments shown; declining stays possible', async () => {
    const item = makeItem({ args: { id: 'rec-2' }, fingerprint: fingerprintOf('{"args":{"id":"rec-1"},"toolName":"delete_record"}') });
    const { q, backend } = render(item);
    await checked(q);
    const approve = q('approve') as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    approve.click();
    flushSync();
    expect(backend.calls.filter((c) => c.method === 'approve')).toEqual([]);
    expect((q('decline') as HTMLButtonElement).disabled).toBe(false);
  });

  it('says it cannot verify arguments holding a whole number beyond 2^53, instead of a false mismatch', async () => {
    const args = JSON.parse('{"id":"rec-1","amount":12345678901234567891}');
    const item = makeItem({ args, fingerprint: fingerprintOf('{"args":{"amount":12345678901234567891,"id":"rec-1"},"toolName":"delete_record"}') });
    const { q } = render(item);
    const check = await checked(q);
    expect(check.dataset.status).toBe('unverifiable');
    expect(check.textContent).toContain('Cannot verify in the browser');
    expect(check.textContent).toContain('/amount');
    expect(q('args-tree')!.querySelector('[data-testid="inexact-number"]')).not.toBeNull();
  });
});

describe('Detail: arguments', () => {
  it('shows a bidi override in a key as a visible escape, and counts it at the top', () => {
    const { q } = render(makeItem({ args: { 'file\u202etxt.exe': 'x', nested: { 'a\u200bb': 1 } } }));
    const tree = q('args-tree')!;
    expect(tree.textContent).not.toContain('\u202e');
    expect(tree.textContent).not.toContain('\u200b');
    const esc = [...tree.querySelectorAll('.key [data-mark="hidden"]')];
    expect(esc.map((e) => e.textContent)).toEqual(['\\u{202E}', '\\u{200B}']);
    expect(esc[0].getAttribute('title')).toBe('U+202E RIGHT-TO-LEFT OVERRIDE (invisible)');
    expect(q('args-warnings-headline')!.textContent).toBe('2 hidden characters in the arguments');
    expect(q('args-warnings')!.textContent).toContain('in the key /file\\u{202E}txt.exe');
  });

  it('highlights look-alikes with their name and counts them with hidden ones', () => {
    const { q } = render(makeItem({ args: { url: 'https://\u0440\u0430ypal.com', cmd: '\uff52m -rf /\u200b' } }));
    const marks = [...q('args-tree')!.querySelectorAll('[data-mark="lookalike"]')];
    expect(marks.map((m) => m.getAttribute('title'))).toEqual([
      "U+0440 CYRILLIC SMALL LETTER ER looks like 'p'",
      "U+0430 CYRILLIC SMALL LETTER A looks like 'a'",
      "U+FF52 FULLWIDTH LATIN SMALL LETTER R looks like 'r'",
    ]);
    expect(q('args-warnings-headline')!.textContent).toBe('1 hidden character, 3 look-alike characters in the arguments');
  });

  it('warns about characters hidden in the folded part of a long string and in closed nodes', () => {
    const long = 'a'.repeat(500) + '\u202e' + 'b'.repeat(500);
    let deep: unknown = { leaf: 'p\u0430ypal' };
    for (let i = 0; i < 20; i++) deep = { next: deep };
    const { q } = render(makeItem({ args: { long, deep } }));
    expect(q('args-tree')!.querySelector('[data-mark]')).toBeNull(); // nothing flagged is on screen
    expect(q('folded-marks')!.textContent).toMatch(/^\+1 hidden character in the folded part$/);
    expect(q('args-warnings-headline')!.textContent).toBe('1 hidden character, 1 look-alike character in the arguments');
    expect(q('args-warnings')!.textContent).toContain('/deep' + '/next'.repeat(20) + '/leaf');
  });

  it('shows no warnings for plain arguments', () => {
    const { q } = render(makeItem({ args: { id: 'rec-1', note: 'Привет, мир' } }));
    expect(q('args-warnings')).toBeNull();
  });

  it('shows the raw arguments as canonical JSON, and pretty-printed on request', () => {
    const { q } = render(makeItem({ args: JSON.parse('{"b":1.0,"a":{"y":[1e21,"\u202e"],"x":null}}') }));
    q('raw-toggle')!.click();
    flushSync();
    expect(q('args-raw')!.textContent).toBe('{"a":{"x":null,"y":[1e+21,"\\u{202E}"]},"b":1}');
    expect(q('args-raw')!.querySelector('[data-mark="hidden"]')).not.toBeNull();
    q('args-raw-pretty')!.click();
    flushSync();
    expect(q('args-raw')!.textContent).toBe('{\n  "b": 1,\n  "a": {\n    "y": [\n      1e+21,\n      "\\u{202E}"\n    ],\n    "x": null\n  }\n}');
    q('args-raw-pretty')!.click();
    flushSync();
    expect(q('args-raw')!.textContent!.startsWith('{"a"')).toBe(true);
  });

  it('renders arguments 10,000 levels deep and a 1 MB string without hanging', async () => {
    let deep: unknown = { leaf: '\u200b' };
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const big = 'x'.repeat(1 << 20) + '\u0430';
    const started = performance.now();
    const { q } = render(makeItem({ args: { deep, big }, fingerprint: 'sha256:' + 'ab'.repeat(32) }));
    expect(q('args-warnings-headline')!.textContent).toBe('1 hidden character, 1 look-alike character in the arguments');
    const check = await checked(q);
    expect(check.dataset.status).toBe('mismatch'); // makeItem's fingerprint is not this call's
    q('raw-toggle')!.click();
    flushSync();
    expect(q('args-raw')!.textContent!.startsWith('{"big":"xxx')).toBe(true);
    expect(performance.now() - started).toBeLessThan(4000);
  });
});
