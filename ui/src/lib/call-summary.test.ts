import { describe, expect, it } from 'vitest';
import { cutText, oneLine, outcomeKind, questionOf, summaryOf } from './call-summary';
import { makeItem } from './testing/fake-backend';

describe('oneLine', () => {
  it('writes a top-level object as key: value pairs, nested values compactly, strings as they are', () => {
    expect(oneLine({ id: 'rec-1' }).text).toBe('id: "rec-1"');
    expect(oneLine({ id: 'rec-1', cascade: true, n: 3, none: null }).text).toBe('id: "rec-1", cascade: true, n: 3, none: null');
    expect(oneLine({ to: ['a', 'b'], meta: { x: 1, y: { z: [] } } }).text).toBe('to: ["a", "b"], meta: {x: 1, y: {z: []}}');
    expect(oneLine([1, 'two']).text).toBe('[1, "two"]');
    expect(oneLine('plain').text).toBe('"plain"');
    expect(oneLine({}).text).toBe('');
    // Line breaks read as spaces; hidden characters stay, for MarkedText to mark.
    expect(oneLine({ cmd: 'rm -rf /\n\tnow', x: 'a\u202Eb' }).text).toBe('cmd: "rm -rf / now", x: "a\u202Eb"');
    // No HTML meaning: the text is what the value says.
    expect(oneLine({ '<b>': '<img src=x onerror=alert(1)>' }).text).toBe('<b>: "<img src=x onerror=alert(1)>"');
  });

  it('cuts at the limit with …, never in the middle of a character, and stops early on huge or deep values', () => {
    const r = oneLine({ text: 'x'.repeat(1_000_000) }, 20);
    expect(r).toEqual({ text: 'text: "xxxxxxxxxxxxx…', cut: true });
    expect(r.text.length).toBe(21);
    // An astral character (two UTF-16 units) right at the cut is left out whole.
    const astral = oneLine({ a: '😀😀😀😀' }, 7).text;
    expect(astral).toBe('a: "😀…');
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(astral)).toBe(false);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const d = oneLine({ deep }, 30);
    expect(d.cut).toBe(true);
    expect(d.text).toBe(`deep: ${'['.repeat(24)}…`);
    expect(oneLine({ a: 1 }, 8)).toEqual({ text: 'a: 1', cut: false });
  });

  it('cutText keeps a text on one line and cuts it', () => {
    expect(cutText('Which region?\nEU or US')).toBe('Which region? EU or US');
    expect(cutText('abcdef', 3)).toBe('abc…');
  });
});

describe('summaryOf and questionOf', () => {
  it('tells four delete_record calls apart by their arguments', () => {
    const texts = ['rec-1', 'rec-2', 'prod-7', 'rec-1 '].map((id, i) => summaryOf(makeItem({ id: `q${i}`, args: { id } })).text);
    expect(texts).toEqual(['id: "rec-1"', 'id: "rec-2"', 'id: "prod-7"', 'id: "rec-1 "']);
    expect(new Set(texts).size).toBe(4);
  });

  it('for a suspended call: the question once (message, else question), else the payload cut', () => {
    const ask = (suspendPayload: unknown, args: unknown = { question: 'from args' }) => makeItem({ kind: 'suspend', toolName: 'ask_operator', args, suspendPayload });
    expect(questionOf(ask({ question: 'Which region?' }))).toBe('Which region?');
    expect(questionOf(ask({ message: 'Pick one', question: 'other' }))).toBe('Pick one');
    expect(questionOf(ask('Plain text?'))).toBe('Plain text?');
    expect(questionOf(ask({ question: '  ' }))).toBeNull();
    expect(questionOf(ask({ options: [1, 2] }))).toBeNull();
    expect(questionOf(makeItem({ suspendPayload: { question: 'not asked' } }))).toBeNull();

    expect(summaryOf(ask({ question: 'Which region?' }))).toEqual({ what: 'question', text: 'Which region?', hidden: 0, lookalike: 0 });
    expect(summaryOf(ask({ options: [1, 2] }))).toMatchObject({ what: 'payload', text: 'options: [1, 2]' });
    expect(summaryOf(ask(null))).toMatchObject({ what: 'args', text: 'question: "from args"' });
  });

  it('counts hidden and look-alike characters of the whole value, also past the cut', () => {
    const s = summaryOf(makeItem({ args: { id: 'x'.repeat(500) + '\u202E' + 'p\u0430ypal' } }));
    expect(s.text.endsWith('…')).toBe(true);
    expect(s.text).not.toContain('\u202E');
    expect([s.hidden, s.lookalike]).toEqual([1, 1]);
  });

  it('is made once per copy of a call', () => {
    const item = makeItem();
    expect(summaryOf(item)).toBe(summaryOf(item));
    expect(summaryOf({ ...item })).not.toBe(summaryOf(item));
  });
});

describe('outcomeKind', () => {
  it('names what became of a call: expired before the kind of decline it is', () => {
    expect(outcomeKind({ kind: 'approve', expiredAfterSecs: null })).toBe('approved');
    expect(outcomeKind({ kind: 'edit', expiredAfterSecs: null })).toBe('edited');
    expect(outcomeKind({ kind: 'decline', expiredAfterSecs: null })).toBe('declined');
    expect(outcomeKind({ kind: 'resume', expiredAfterSecs: null })).toBe('answered');
    expect(outcomeKind({ kind: 'decline', expiredAfterSecs: 900 })).toBe('expired');
  });
});
