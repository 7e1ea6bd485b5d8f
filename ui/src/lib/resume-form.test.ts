import { describe, expect, it } from 'vitest';
import { assignServerErrors, buildResumeForm, collectResumeData, parseRawResumeData } from './resume-form';

describe('buildResumeForm', () => {
  it('makes one field per property with the right input type', () => {
    const m = buildResumeForm({
      type: 'object',
      properties: {
        answer: { type: 'string' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        sure: { type: 'boolean' },
        colour: { type: 'string', enum: ['red', 'blue'] },
      },
    });
    expect(m.mode).toBe('fields');
    if (m.mode !== 'fields') return;
    expect(m.fields.map((f) => [f.name, f.type])).toEqual([
      ['answer', 'string'],
      ['count', 'integer'],
      ['ratio', 'number'],
      ['sure', 'boolean'],
      ['colour', 'enum'],
    ]);
    expect(m.fields.find((f) => f.name === 'colour')!.options).toEqual(['red', 'blue']);
    expect(m.fields[0].path).toBe('/answer');
  });

  it('marks required fields and uses title/description as label text', () => {
    const m = buildResumeForm({
      type: 'object',
      properties: {
        answer: { type: 'string', description: 'Your answer' },
        note: { type: 'string', title: 'Note', description: 'optional remark' },
        plain: { type: 'string' },
      },
      required: ['answer'],
    });
    if (m.mode !== 'fields') throw new Error('expected fields');
    const [answer, note, plain] = m.fields;
    expect(answer.required).toBe(true);
    expect(note.required).toBe(false);
    expect(answer.label).toBe('Your answer');
    expect(note.label).toBe('Note');
    expect(note.description).toBe('optional remark');
    expect(plain.label).toBe('plain');
  });

  it('pre-fills defaults by type', () => {
    const m = buildResumeForm({
      type: 'object',
      properties: {
        s: { type: 'string', default: 'hello' },
        n: { type: 'number', default: 2.5 },
        b: { type: 'boolean', default: true },
        e: { enum: ['a', 'b', 'c'], default: 'c' },
        wrong: { type: 'string', default: 42 },
      },
    });
    if (m.mode !== 'fields') throw new Error('expected fields');
    expect(m.initial).toEqual({ s: 'hello', n: '2.5', b: true, e: '2', wrong: '' });
  });

  it('accepts a nullable primitive type', () => {
    const m = buildResumeForm({ type: 'object', properties: { a: { type: ['string', 'null'] } } });
    expect(m.mode).toBe('fields');
  });

  it.each([
    ['no schema', null],
    ['a non-object schema', { type: 'string' }],
    ['an object without properties', { type: 'object' }],
    ['a nested object', { type: 'object', properties: { inner: { type: 'object', properties: { x: { type: 'string' } } } } }],
    ['an array property', { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } }],
    ['a combinator', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }],
    ['a required name without a property', { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }],
  ])('falls back to raw JSON for %s', (_name, schema) => {
    const m = buildResumeForm(schema as never);
    expect(m.mode).toBe('raw');
    if (m.mode === 'raw') {
      expect(m.reason).not.toBe('');
      expect(JSON.parse(m.initial)).toEqual({});
    }
  });
});

describe('collectResumeData', () => {
  const model = buildResumeForm({
    type: 'object',
    properties: {
      answer: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      sure: { type: 'boolean' },
      level: { enum: [1, 2, 3] },
      note: { type: 'string' },
    },
    required: ['answer', 'count', 'level'],
  });
  if (model.mode !== 'fields') throw new Error('expected fields');

  it('refuses missing required fields, naming each by path', () => {
    const r = collectResumeData(model.fields, { ...model.initial });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['/answer', '/count', '/level']);
  });

  it('builds typed data and leaves out empty optional fields', () => {
    const r = collectResumeData(model.fields, { ...model.initial, answer: 'blue', count: '3', ratio: 0.5, level: '1', sure: true });
    expect(r).toEqual({ ok: true, data: { answer: 'blue', count: 3, ratio: 0.5, sure: true, level: 2 } });
  });

  it('refuses a fraction for an integer', () => {
    const r = collectResumeData(model.fields, { ...model.initial, answer: 'x', count: '1.5', level: '0' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors['/count']).toMatch(/whole/);
  });
});

describe('raw JSON and server errors', () => {
  it('parses raw JSON or says why not', () => {
    expect(parseRawResumeData('{"a":1}')).toEqual({ ok: true, data: { a: 1 } });
    const bad = parseRawResumeData('{a:1}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/JSON/);
  });

  it('puts invalid_resume_data errors next to the field at their JSON pointer', () => {
    const m = buildResumeForm({ type: 'object', properties: { answer: { type: 'string' }, 'a/b': { type: 'string' } } });
    if (m.mode !== 'fields') throw new Error('expected fields');
    const { byPath, other } = assignServerErrors(m.fields, {
      errors: [
        { path: '/answer', message: 'must be a colour' },
        { path: '/a~1b', message: 'too long' },
        { path: '', message: 'unknown property "x"' },
      ],
    });
    expect(byPath['/answer']).toEqual(['must be a colour']);
    expect(byPath['/a~1b']).toEqual(['too long']);
    expect(other).toEqual([{ path: '', message: 'unknown property "x"' }]);
  });
});
