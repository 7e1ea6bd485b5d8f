import { describe, expect, it } from 'vitest';
import { checkForm, draftToRaw, fieldPaths, loadData, newItem, placeErrors, serverErrors, type ArrayDraft, type ChoiceDraft, type ObjectDraft } from './resume-data';
import { form, field, fresh, errorsOf, dataOf, type FormModel } from './testing/resume-form';

describe('checkForm: validation by path', () => {
  const m = form({
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

  it('refuses missing required fields, naming each by path', () => {
    expect(Object.keys(errorsOf(m, fresh(m))).sort()).toEqual(['/answer', '/count', '/level']);
  });

  it('builds typed data and leaves out empty optional fields', () => {
    const d = fresh(m);
    (field(m, d, 'answer').draft as { text: string }).text = 'blue';
    (field(m, d, 'count').draft as { value: number }).value = 3;
    (field(m, d, 'ratio').draft as { value: number }).value = 0.5;
    (field(m, d, 'sure').draft as { value: boolean }).value = true;
    (field(m, d, 'level').draft as { index: string }).index = '1';
    expect(checkForm(m, d)).toEqual({ ok: true, data: { answer: 'blue', count: 3, ratio: 0.5, sure: true, level: 2 } });
  });

  it('refuses a fraction for an integer, and text the browser could not read as a number', () => {
    const d = fresh(m);
    (field(m, d, 'answer').draft as { text: string }).text = 'x';
    (field(m, d, 'count').draft as { value: number }).value = 1.5;
    (field(m, d, 'level').draft as { index: string }).index = '0';
    Object.assign(field(m, d, 'ratio').draft, { value: null, badInput: true });
    const errs = errorsOf(m, d);
    expect(errs['/count']).toEqual(['Must be a whole number.']);
    expect(errs['/ratio']).toEqual(['Enter a number.']);
  });

  it('checks number minimum, maximum and multipleOf', () => {
    const n = form({ type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 } } });
    const at = (v: number) => {
      const d = fresh(n);
      (d.fields[0] as { value: number }).value = v;
      return errorsOf(n, d)['/n'] ?? [];
    };
    // The server (the jsonschema crate) also calls a value below a fractional divisor no multiple
    // of it; the library does not (-1 is -2 × 0.5): the server says so once the value is sent.
    expect(at(-1)).toEqual(['Must be at least 0.']);
    expect(at(10)).toEqual(['Must be less than 10.']);
    expect(at(0.3)).toEqual(['Must be a multiple of 0.5.']);
    expect(at(9.5)).toEqual([]);
  });

  it('checks string minLength, maxLength and pattern, and survives a pattern JS cannot compile', () => {
    const s = form({
      type: 'object',
      properties: { code: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' }, odd: { type: 'string', pattern: '(?<!oops' } },
    });
    const at = (code: string, odd = 'whatever') => {
      const d = fresh(s);
      (d.fields[0] as { text: string }).text = code;
      (d.fields[1] as { text: string }).text = odd;
      return errorsOf(s, d);
    };
    expect(at('a')['/code']).toEqual(['Needs at least 2 characters.']);
    expect(at('abcde')['/code']).toEqual(['Takes at most 4 characters.']);
    expect(at('AB')['/code']).toEqual(['Must match the pattern ^[a-z]+$.']);
    // The odd pattern is left to the server: no local error, no crash.
    expect(at('abc')).toEqual({});
  });

  it('checks formats as the server does: asserted under draft-07, not under 2020-12', () => {
    const props = { mail: { type: 'string', format: 'email' }, day: { type: 'string', format: 'date' }, link: { type: 'string', format: 'uri' }, at: { type: 'string', format: 'date-time' } };
    const d7 = form({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: props });
    const fill = (m: FormModel, values: string[]) => {
      const d = fresh(m);
      values.forEach((v, i) => ((d.fields[i] as { text: string }).text = v));
      return errorsOf(m, d);
    };
    expect(Object.keys(fill(d7, ['nope', '2025-02-30', 'not a uri', '2025-01-01 10:00']))).toEqual(['/mail', '/day', '/link', '/at']);
    expect(fill(d7, ['ops@example.com', '2024-02-29', 'https://example.com', '2025-01-01T10:00:00Z'])).toEqual({});
    const d2020 = form({ type: 'object', properties: props });
    expect(fill(d2020, ['nope', '2025-02-30', 'not a uri', 'soon'])).toEqual({});
  });
});

describe('nested objects and lists', () => {
  const m = form({
    type: 'object',
    properties: {
      target: {
        type: 'object',
        title: 'Target',
        properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 1 } },
        required: ['host'],
      },
      extra: { type: 'object', properties: { note: { type: 'string' }, tag: { const: 'x' } }, required: ['note'] },
      people: {
        type: 'array',
        minItems: 1,
        maxItems: 2,
        items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    },
    required: ['target', 'people'],
  });

  it('starts a required list with minItems items and reports nested errors at their paths', () => {
    const d = fresh(m);
    expect((field(m, d, 'people').draft as ArrayDraft).items).toHaveLength(1);
    expect(Object.keys(errorsOf(m, d)).sort()).toEqual(['/people/0/name', '/target/host']);
  });

  it('builds nested data, leaving out an optional object nobody filled in (fixed values aside)', () => {
    const d = fresh(m);
    const target = field(m, d, 'target').draft as ObjectDraft;
    (target.fields[0] as { text: string }).text = 'db1';
    const people = field(m, d, 'people');
    const list = people.draft as ArrayDraft;
    ((list.items[0].draft as ObjectDraft).fields[0] as { text: string }).text = 'Ann';
    expect(dataOf(m, d)).toEqual({ target: { host: 'db1' }, people: [{ name: 'Ann' }] });
  });

  it('adds and removes items, and checks minItems and maxItems', () => {
    const d = fresh(m);
    (((field(m, d, 'target').draft as ObjectDraft).fields[0]) as { text: string }).text = 'db1';
    const { node, draft } = field(m, d, 'people');
    const list = draft as ArrayDraft;
    if (node.kind !== 'array') throw new Error('array expected');
    for (const n of ['Ann', 'Bob', 'Cy']) {
      const item = newItem(node);
      ((item.draft as ObjectDraft).fields[0] as { text: string }).text = n;
      list.items.push(item);
    }
    list.items.shift();
    expect(errorsOf(m, d)['/people']).toEqual(['Takes at most 2 items.']);
    list.items.splice(0, 3);
    list.present = true;
    expect(errorsOf(m, d)['/people']).toEqual(['Needs at least 1 item.']);
  });

  it('has a place for errors at every field and list item', () => {
    const d = fresh(m);
    expect([...fieldPaths(m.root, d)].sort()).toEqual([
      '/extra',
      '/extra/note',
      '/extra/tag',
      '/people',
      '/people/0',
      '/people/0/name',
      '/target',
      '/target/host',
      '/target/port',
    ]);
  });
});

describe('enums, const and nullable', () => {
  it('sends the enum value chosen, of any JSON type', () => {
    const m = form({ type: 'object', properties: { v: { enum: ['a', 2, null, { k: 1 }] } }, required: ['v'] });
    const d = fresh(m);
    (d.fields[0] as { index: string }).index = '3';
    expect(dataOf(m, d)).toEqual({ v: { k: 1 } });
    (d.fields[0] as { index: string }).index = '2';
    expect(dataOf(m, d)).toEqual({ v: null });
  });

  it('always sends a const value', () => {
    const m = form({ type: 'object', properties: { kind: { const: 'reply' }, text: { type: 'string' } } });
    expect(dataOf(m, fresh(m))).toEqual({ kind: 'reply' });
  });

  it('offers null for "type": [T, "null"] and for anyOf [T, {"type": "null"}]', () => {
    const m = form({
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        b: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'null' }], title: 'B' },
      },
      required: ['a', 'b'],
    });
    expect(m.root.fields.map((f) => [f.node.kind, f.node.nullable, f.node.label])).toEqual([
      ['text', true, 'a'],
      ['text', true, 'B'],
    ]);
    const d = fresh(m);
    d.fields[0].isNull = true;
    d.fields[1].isNull = true;
    expect(dataOf(m, d)).toEqual({ a: null, b: null });
    // The server would only say "matches none" for b: the form says why.
    d.fields[1].isNull = false;
    (d.fields[1] as { text: string }).text = 'long';
    expect(errorsOf(m, d)).toEqual({ '/b': ['Takes at most 2 characters.'] });
  });
});

describe('oneOf / anyOf of simple shapes', () => {
  const m = form({
    type: 'object',
    properties: {
      answer: {
        title: 'Answer',
        oneOf: [
          { type: 'object', properties: { kind: { const: 'yes' }, when: { type: 'string', minLength: 1 } }, required: ['kind', 'when'] },
          { type: 'object', properties: { kind: { const: 'no' }, why: { type: 'string' } }, required: ['kind'] },
        ],
      },
      amount: { type: ['integer', 'string'] },
    },
    required: ['answer'],
  });

  it('names the shapes by their fixed field, or their type', () => {
    const [answer, amount] = m.root.fields.map((f) => f.node);
    if (answer.kind !== 'choice' || amount.kind !== 'choice') throw new Error('choices expected');
    expect(answer.variants.map((v) => v.label)).toEqual(['yes', 'no']);
    expect(amount.variants.map((v) => v.label)).toEqual(['Whole number', 'Text']);
  });

  it('sends the chosen shape and explains its errors at their own paths', () => {
    const d = fresh(m);
    const choice = d.fields[0] as ChoiceDraft;
    expect(choice.index).toBe('0');
    expect(errorsOf(m, d)).toEqual({ '/answer/when': ['This field is required.'] });
    choice.index = '1';
    expect(dataOf(m, d)).toEqual({ answer: { kind: 'no' } });
  });

  it('picks the shape that fits when data comes from the raw editor', () => {
    const r = loadData(m.root, { answer: { kind: 'no', why: 'later' }, amount: 'ten' });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect((r.draft.fields[0] as ChoiceDraft).index).toBe('1');
    expect((r.draft.fields[1] as ChoiceDraft).index).toBe('1');
    expect(dataOf(m, r.draft)).toEqual({ answer: { kind: 'no', why: 'later' }, amount: 'ten' });
  });
});

describe('form ↔ raw round trip', () => {
  const m = form({
    type: 'object',
    properties: {
      title: { type: 'string' },
      n: { type: ['number', 'null'] },
      tags: { type: 'array', items: { enum: ['a', 'b'] } },
      inner: { type: 'object', properties: { ok: { type: 'boolean' }, when: { type: 'string', format: 'date' } } },
      pick: { anyOf: [{ type: 'string' }, { type: 'object', properties: { id: { type: 'integer' } } }] },
      ['__proto__']: { type: 'string' },
    },
  });

  it('keeps the data both ways', () => {
    // As typed in the raw editor; `__proto__` is an own field there, and must stay one.
    const text = '{"title": "T", "n": null, "tags": ["b", "a"], "inner": {"ok": false, "when": "2025-01-02"}, "pick": {"id": 4}, "__proto__": "p"}';
    const loaded = loadData(m.root, JSON.parse(text));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    const back = draftToRaw(m.root, loaded.draft);
    expect(back.leftOut).toEqual([]);
    expect(JSON.parse(back.text)).toEqual(JSON.parse(text));
    expect(Object.keys(JSON.parse(back.text))).toContain('__proto__');
    expect(dataOf(m, loaded.draft)).toEqual(JSON.parse(text));
  });

  it('keeps an empty list or object that was in the data', () => {
    const loaded = loadData(m.root, { tags: [], inner: {} });
    if (!loaded.ok) throw new Error('expected to load');
    expect(JSON.parse(draftToRaw(m.root, loaded.draft).text)).toEqual({ tags: [], inner: {} });
  });

  it('refuses to go back to the form when that would lose data, and says where', () => {
    const r = loadData(m.root, { title: 5, extra: true, tags: ['c'] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.path).sort()).toEqual(['/extra', '/tags/0', '/title']);
  });

  it('says which values it left out going to the raw editor', () => {
    const d = fresh(m);
    Object.assign(d.fields[1], { badInput: true });
    (d.fields[0] as { text: string }).text = 'T';
    expect(draftToRaw(m.root, d)).toEqual({ text: '{\n  "title": "T"\n}', leftOut: ['/n'] });
  });
});

describe('errors next to fields', () => {
  const m = form({
    type: 'object',
    properties: {
      answer: { type: 'string' },
      'a/b': { type: 'string' },
      people: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
    },
  });

  it('puts invalid_resume_data errors at the field of their JSON pointer, or the nearest one above', () => {
    const d = fresh(m);
    const people = field(m, d, 'people');
    if (people.node.kind !== 'array') throw new Error('array expected');
    (people.draft as ArrayDraft).items.push(newItem(people.node), newItem(people.node));
    const { byPath, other } = placeErrors(
      fieldPaths(m.root, d),
      serverErrors({
        errors: [
          { path: '/answer', message: 'must be a colour' },
          { path: '/a~1b', message: 'too long' },
          { path: '/people/1/name', message: 'is not a known person' },
          { path: '/people/1/age', message: 'unknown' },
          { path: '', message: 'unknown property "x"' },
          { path: '/nowhere', message: 'lost' },
        ],
      }),
    );
    expect(byPath['/answer']).toEqual(['must be a colour']);
    expect(byPath['/a~1b']).toEqual(['too long']);
    expect(byPath['/people/1/name']).toEqual(['is not a known person']);
    expect(byPath['/people/1']).toEqual(['age: unknown']);
    expect(other).toEqual([
      { path: '', message: 'unknown property "x"' },
      { path: '/nowhere', message: 'lost' },
    ]);
  });

  it('reads details.errors defensively', () => {
    expect(serverErrors(null)).toEqual([]);
    expect(serverErrors({ errors: 'nope' })).toEqual([]);
    expect(serverErrors({ errors: [{ path: 3, message: 4 }, 'x'] })).toEqual([{ path: '', message: '4' }]);
  });
});
