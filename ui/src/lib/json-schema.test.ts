import { describe, expect, it } from 'vitest';
import { checkJson, compilePattern, formatAsserted, isDate, isDateTime, isEmail, isMultipleOf, isTime, isUri } from './json-schema';

const paths = (schema: unknown, value: unknown) => checkJson(schema, value).errors.map((e) => e.path);

describe('checkJson', () => {
  it('reports a missing required property at the property itself, as the server does', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, 'x/y~z': { type: 'string' } }, required: ['a', 'x/y~z'] };
    expect(paths(schema, {})).toEqual(['/a', '/x~1y~0z']);
  });

  it('checks type, enum and const at the value path', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, e: { enum: ['a', 1, null] }, c: { const: { k: [1] } } },
    };
    const r = checkJson(schema, { n: 1.5, e: 'b', c: { k: [2] } });
    expect(r.errors.map((e) => e.path)).toEqual(['/n', '/e', '/c']);
    expect(r.errors[0].message).toBe('Must be a whole number.');
    expect(paths(schema, { n: 2, e: null, c: { k: [1.0] } })).toEqual([]);
  });

  it('checks nested objects and every list item by path', () => {
    const schema = {
      type: 'object',
      properties: {
        people: { type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      },
    };
    expect(paths(schema, { people: [{ name: 'a' }, {}, { name: 3 }] })).toEqual(['/people/1/name', '/people/2/name']);
    expect(paths(schema, { people: [] })).toEqual(['/people']);
    expect(paths(schema, { people: [{ name: 'a' }, { name: 'a' }] })).toEqual(['/people']);
  });

  it('checks string lengths in characters, not UTF-16 units', () => {
    const schema = { type: 'string', minLength: 2, maxLength: 3 };
    expect(paths(schema, '😀😀😀')).toEqual([]);
    expect(paths(schema, '😀')).toEqual(['']);
    expect(paths(schema, 'abcd')).toEqual(['']);
  });

  it('checks a pattern anywhere in the string, and skips one JS cannot compile without failing', () => {
    expect(paths({ type: 'string', pattern: '^[a-z]+$' }, 'abc')).toEqual([]);
    expect(paths({ type: 'string', pattern: '[0-9]' }, 'ab3c')).toEqual([]);
    expect(paths({ type: 'string', pattern: '^[a-z]+$' }, 'aB')).toEqual(['']);
    const bad = checkJson({ type: 'string', pattern: '(?<!unclosed' }, 'anything');
    expect(bad).toEqual({ errors: [], exact: false });
  });

  it('leaves a pattern that can backtrack for ages to the server instead of freezing the page', () => {
    expect(compilePattern('^(a+)+$')).toBeNull();
    expect(compilePattern('^(a|aa)*$')).toBeNull();
    expect(compilePattern('^[a-z]+$')).not.toBeNull();
    const started = performance.now();
    const r = checkJson({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(40) + '!');
    expect(performance.now() - started).toBeLessThan(100);
    expect(r).toEqual({ errors: [], exact: false });
  });

  it('checks minimum, maximum and their exclusive forms per draft', () => {
    expect(paths({ minimum: 1, maximum: 3 }, 0)).toEqual(['']);
    expect(paths({ minimum: 1, maximum: 3 }, 3)).toEqual([]);
    expect(paths({ exclusiveMinimum: 1 }, 1)).toEqual(['']);
    expect(paths({ exclusiveMaximum: 3 }, 2.9)).toEqual([]);
    // Draft 4: exclusiveMaximum is a boolean modifier of maximum.
    const d4 = { $schema: 'http://json-schema.org/draft-04/schema#', maximum: 3, exclusiveMaximum: true };
    expect(paths(d4, 3)).toEqual(['']);
    expect(paths(d4, 2)).toEqual([]);
  });

  it('answers multipleOf as the jsonschema crate does', () => {
    // The crate's own test cases (keywords/multiple_of.rs).
    const valid: [number, number][] = [[2, 4], [1.0, 4.0], [1.5, 3.0], [1.5, 4.5], [0.1, 12.2], [0.0001, 3.1254], [0.0001, 47.498], [0.1, 1.1], [0.1, 1.2], [0.1, 1.3], [0.02, 1.02], [1e-16, 1e-15]];
    const invalid: [number, number][] = [[1.0, 4.5], [0.1, 4.55], [0.2, 4.5], [0.02, 1.01], [1.3, 1.3e-16]];
    for (const [m, v] of valid) expect(isMultipleOf(v, m), `${v} multipleOf ${m}`).toBe(true);
    for (const [m, v] of invalid) expect(isMultipleOf(v, m), `${v} multipleOf ${m}`).toBe(false);
    expect(isMultipleOf(0.3, 0.1)).toBe(true);
    expect(isMultipleOf(0, 0.5)).toBe(true);
    expect(paths({ type: 'number', multipleOf: 5 }, 12)).toEqual(['']);
  });

  it('asserts formats only for drafts 4, 6 and 7, as the crate does by default', () => {
    const d7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string', format: 'email' };
    expect(formatAsserted(d7)).toBe(true);
    expect(paths(d7, 'not an email')).toEqual(['']);
    expect(paths(d7, 'ops@example.com')).toEqual([]);
    expect(formatAsserted({ type: 'string', format: 'email' })).toBe(false);
    expect(paths({ type: 'string', format: 'email' }, 'not an email')).toEqual([]);
    // An unknown format is ignored by the server too: the check stays exact.
    expect(checkJson({ $schema: 'http://json-schema.org/draft-07/schema#', format: 'colour' }, 'x')).toEqual({ errors: [], exact: true });
    // A known one not checked here is left to the server.
    expect(checkJson({ $schema: 'http://json-schema.org/draft-07/schema#', format: 'hostname' }, 'x').exact).toBe(false);
  });

  it('recognises dates, times, emails and URIs like the crate (never stricter)', () => {
    expect(isDate('2024-02-29')).toBe(true);
    expect(isDate('2023-02-29')).toBe(false);
    expect(isDate('2024-13-01')).toBe(false);
    expect(isDate('2024-1-01')).toBe(false);
    expect(isDateTime('2025-01-31T09:30:00Z')).toBe(true);
    expect(isDateTime('2025-01-31t09:30:00.123+02:00')).toBe(true);
    expect(isDateTime('2025-01-31T09:30:00')).toBe(false); // no zone
    expect(isDateTime('2025-01-31 09:30:00Z')).toBe(false);
    expect(isTime('23:59:60Z')).toBe(true);
    expect(isTime('24:00:00Z')).toBe(false);
    expect(isEmail('ops@example.com')).toBe(true);
    expect(isEmail('"a b"@example.com')).toBe(true);
    expect(isEmail('ops.example.com')).toBe(false);
    expect(isUri('https://example.com/a?b#c')).toBe(true);
    expect(isUri('urn:isbn:0451450523')).toBe(true);
    expect(isUri('/relative/path')).toBe(false);
    expect(isUri('https://exa mple.com')).toBe(false);
  });

  it('checks anyOf, oneOf, allOf and not', () => {
    const any = { anyOf: [{ type: 'string' }, { type: 'number' }] };
    expect(paths(any, 'x')).toEqual([]);
    expect(checkJson(any, true).errors).toEqual([{ path: '', message: 'Matches none of the allowed shapes.', keyword: 'anyOf' }]);
    const one = { oneOf: [{ type: 'number' }, { type: 'integer' }] };
    expect(paths(one, 1.5)).toEqual([]);
    expect(checkJson(one, 2).errors[0].message).toMatch(/more than one/);
    expect(paths({ allOf: [{ minimum: 1 }, { maximum: 2 }] }, 3)).toEqual(['']);
    expect(paths({ not: { type: 'string' } }, 'x')).toEqual(['']);
    expect(paths({ not: { type: 'string' } }, 1)).toEqual([]);
  });

  it('does not claim "more than one" or "not" when a branch was only partly checked', () => {
    // `$ref` is not followed here: the branch may well fail on the server.
    const one = { oneOf: [{ type: 'string' }, { type: 'string', $ref: '#/$defs/x' }], $defs: { x: { maxLength: 1 } } };
    expect(checkJson(one, 'long')).toEqual({ errors: [], exact: false });
    expect(checkJson({ not: { $ref: '#/$defs/x' } }, 'x')).toEqual({ errors: [], exact: false });
  });

  it('refuses unknown fields under additionalProperties: false, at the object', () => {
    const schema = { type: 'object', properties: { a: {} }, additionalProperties: false };
    expect(checkJson(schema, { a: 1, b: 2 }).errors).toEqual([{ path: '', message: 'Unknown field "b".' }]);
  });

  it('treats a field named __proto__ as data', () => {
    const schema = { type: 'object', properties: { ['__proto__']: { type: 'string' } }, required: ['__proto__'] };
    expect(paths(schema, JSON.parse('{"__proto__": 1}'))).toEqual(['/__proto__']);
    expect(paths(schema, JSON.parse('{"__proto__": "x"}'))).toEqual([]);
    expect(paths(schema, {})).toEqual(['/__proto__']);
  });

  it('stops at its bounds on deep or combinatorial schemas, leaving the rest to the server', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    let value: unknown = 1;
    for (let i = 0; i < 1000; i++) {
      deep = { type: 'object', properties: { a: deep } };
      value = { a: value };
    }
    const started = performance.now();
    expect(checkJson(deep, value).exact).toBe(false);
    // anyOf of anyOf of …: 2^40 branches without a work bound.
    let wide: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) wide = { anyOf: [{ ...wide, minLength: 1000 }, wide] };
    checkJson(wide, 1);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
