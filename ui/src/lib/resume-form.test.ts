import { describe, expect, it } from 'vitest';
import { checkRaw, optionText, parseRawResumeData } from './resume-data';
import { MAX_FORM_DEPTH, buildResumeForm } from './resume-form';
import { form, fresh, dataOf } from './testing/resume-form';

describe('buildResumeForm: one node per property', () => {
  it('gives each property the right kind and input type', () => {
    const m = form({
      type: 'object',
      properties: {
        answer: { type: 'string' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        sure: { type: 'boolean' },
        colour: { type: 'string', enum: ['red', 'green', 'blue', 'black'] },
        size: { enum: ['s', 'm'] },
        kind: { const: 'reply' },
        day: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        mail: { type: 'string', format: 'email' },
        link: { type: 'string', format: 'uri' },
      },
    });
    const kinds = m.root.fields.map((f) => [f.name, f.node.kind, f.node.kind === 'text' ? f.node.input : f.node.kind === 'enum' ? f.node.widget : '']);
    expect(kinds).toEqual([
      ['answer', 'text', 'text'],
      ['count', 'number', ''],
      ['ratio', 'number', ''],
      ['sure', 'boolean', ''],
      ['colour', 'enum', 'select'],
      ['size', 'enum', 'radio'],
      ['kind', 'const', ''],
      ['day', 'text', 'date'],
      // The browser's datetime-local input has no zone: a text input with the format as hint.
      ['at', 'text', 'text'],
      ['mail', 'text', 'email'],
      ['link', 'text', 'url'],
    ]);
  });

  it('marks required fields and uses title/description as label text', () => {
    const m = form({
      type: 'object',
      properties: {
        answer: { type: 'string', description: 'Your answer' },
        note: { type: 'string', title: 'Note', description: 'optional remark' },
        plain: { type: 'string' },
      },
      required: ['answer'],
    });
    const [answer, note, plain] = m.root.fields.map((f) => f.node);
    expect(answer.required).toBe(true);
    expect(note.required).toBe(false);
    expect(answer.label).toBe('Your answer');
    expect(note.label).toBe('Note');
    expect(note.description).toBe('optional remark');
    expect(plain.label).toBe('plain');
  });

  it('describes the constraints in words for the hint', () => {
    const m = form({
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 3, maxLength: 8, pattern: '^[A-Z]+$' },
        n: { type: 'integer', minimum: 1, maximum: 10, multipleOf: 2 },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3, uniqueItems: true },
      },
    });
    expect(m.root.fields.map((f) => f.node.hints)).toEqual([
      ['3 to 8 characters', 'matching ^[A-Z]+$'],
      ['a whole number', 'at least 1 and at most 10', 'a multiple of 2'],
      ['at most 3 items', 'all different'],
    ]);
  });
});

describe('defaults', () => {
  it('pre-fills defaults where they fit and ignores the rest', () => {
    const m = form({
      type: 'object',
      properties: {
        s: { type: 'string', default: 'hello' },
        n: { type: 'number', default: 2.5 },
        b: { type: 'boolean', default: true },
        e: { enum: ['a', 'b', 'c'], default: 'c' },
        wrong: { type: 'string', default: 42 },
        inner: { type: 'object', properties: { x: { type: 'integer', default: 7 }, y: { type: 'string' } }, default: { y: 'from parent' } },
        list: { type: 'array', items: { type: 'string' }, default: ['one', 'two'] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }], default: 3 },
      },
    });
    expect(dataOf(m, fresh(m))).toEqual({ s: 'hello', n: 2.5, b: true, e: 'c', inner: { x: 7, y: 'from parent' }, list: ['one', 'two'], either: 3 });
  });

  it('takes the raw editor default from the schema when there is no form', () => {
    const m = buildResumeForm({ type: 'object', properties: { a: { $ref: '#/x' } }, default: { a: 1 } });
    expect(m.mode).toBe('raw');
    if (m.mode === 'raw') expect(JSON.parse(m.initial)).toEqual({ a: 1 });
  });
});

describe('raw JSON fallback', () => {
  it.each([
    ['no schema', null],
    ['a non-object schema', { type: 'string' }],
    ['an object without properties', { type: 'object' }],
    ['a nested object without properties', { type: 'object', properties: { inner: { type: 'object' } } }],
    ['a property of any value', { type: 'object', properties: { a: {} } }],
    ['a $ref', { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } }],
    ['allOf', { type: 'object', properties: { a: { allOf: [{ type: 'string' }, { minLength: 1 }] } } }],
    ['if/then', { type: 'object', properties: { a: { type: 'string' } }, if: { required: ['a'] }, then: { required: ['b'] } }],
    ['a tuple', { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }],
    ['a list of any values', { type: 'object', properties: { a: { type: 'array' } } }],
    ['a combinator mixed with other keywords', { type: 'object', properties: { a: { type: 'object', oneOf: [{ required: ['x'] }, { required: ['y'] }] } } }],
    ['a required name without a property', { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }],
    ['an empty enum', { type: 'object', properties: { a: { enum: [] } } }],
    ['too many fields', { type: 'object', properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${i}`, { type: 'string' }])) }],
  ])('falls back to raw JSON for %s, saying why', (_name, schema) => {
    const m = buildResumeForm(schema as never);
    expect(m.mode).toBe('raw');
    if (m.mode === 'raw') {
      expect(m.reason).not.toBe('');
      expect(JSON.parse(m.initial)).toEqual({});
    }
  });

  it('falls back for a schema 1,000 levels deep, at once', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 1000; i++) schema = { type: 'object', properties: { next: schema }, required: ['next'] };
    const started = performance.now();
    const m = buildResumeForm(schema);
    expect(m.mode).toBe('raw');
    if (m.mode === 'raw') expect(m.reason).toContain(`more than ${MAX_FORM_DEPTH} levels`);
    // The raw editor's check of data against it is bounded too.
    const r = checkRaw(schema, '{"next": {"next": 1}}');
    expect(performance.now() - started).toBeLessThan(500);
    expect(r.ok).toBe(false);
  });

  it('checks the raw editor the same way as the form', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string', maxLength: 3 } }, required: ['answer'] };
    expect(checkRaw(schema, '{}')).toEqual({ ok: false, errors: [{ path: '/answer', message: 'This field is required.', keyword: 'required' }] });
    expect(checkRaw(schema, '{"answer": "long"}')).toEqual({ ok: false, errors: [{ path: '/answer', message: 'Takes at most 3 characters.', keyword: 'maxLength' }] });
    expect(checkRaw(schema, '{"answer": "ok"}')).toEqual({ ok: true, data: { answer: 'ok' } });
    const bad = checkRaw(schema, '{answer: 1}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0].message).toMatch(/Not valid JSON/);
  });

  it('parses raw JSON or says why not', () => {
    expect(parseRawResumeData('{"a":1}')).toEqual({ ok: true, data: { a: 1 } });
    const bad = parseRawResumeData('{a:1}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/JSON/);
  });
});

describe('untrusted text', () => {
  it('writes hidden characters in option text as escapes', () => {
    expect(optionText('pick \u202Eeno')).toBe('pick \\u{202E}eno');
    expect(optionText(42)).toBe('42');
    expect(optionText(null)).toBe('null');
    // An option cannot mark a look-alike: it is named in the text.
    expect(optionText('j\u0430vascript:alert(1)')).toBe('j\u0430vascript:alert(1) ⚠ look-alike U+0430');
  });
});
