import { describe, expect, it } from 'vitest';
import { compilePattern, formatAsserted, MAX_SCHEMA_NODES } from './checkable-schema';
import { checkJson } from './json-schema';

const paths = (schema: unknown, value: unknown) => checkJson(schema, value).errors.map((e) => e.path);
const D4 = 'http://json-schema.org/draft-04/schema#';
const D6 = 'http://json-schema.org/draft-06/schema#';
const D7 = 'http://json-schema.org/draft-07/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';
/** Whether `s` passes `format` where formats are asserted (draft 7). */
const valid = (format: string, s: string) => checkJson({ $schema: D7, type: 'string', format }, s).errors.length === 0;

describe('checkJson', () => {
  it('reports a missing required property at the property itself, as the server does', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, 'x/y~z': { type: 'string' } }, required: ['a', 'x/y~z'] };
    expect(paths(schema, {})).toEqual(['/a', '/x~1y~0z']);
    expect(checkJson(schema, {}).errors[0]).toEqual({ path: '/a', message: 'This field is required.', keyword: 'required' });
  });

  it('checks type, enum and const at the value path', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, e: { enum: ['a', 1, null] }, c: { const: { k: [1] } } },
    };
    const r = checkJson(schema, { n: 1.5, e: 'b', c: { k: [2] } });
    expect(r.errors.map((e) => e.path)).toEqual(['/n', '/e', '/c']);
    expect(r.errors.map((e) => e.message)).toEqual(['Must be a whole number.', 'Must be one of "a", 1, null.', 'Must be {"k":[1]}.']);
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

  it('writes paths as JSON pointers, whatever the field names hold', () => {
    const schema = { type: 'object', properties: { 'ü #%/~': { type: 'string' } } };
    expect(paths(schema, { 'ü #%/~': 1 })).toEqual(['/ü #%~1~0']);
  });

  it('checks string lengths in characters, not UTF-16 units', () => {
    const schema = { type: 'string', minLength: 2, maxLength: 3 };
    expect(paths(schema, '😀😀😀')).toEqual([]);
    expect(paths(schema, '😀')).toEqual(['']);
    expect(paths(schema, 'abcd')).toEqual(['']);
  });

  it('checks a pattern anywhere in the string, and leaves one JS cannot compile to the server', () => {
    expect(paths({ type: 'string', pattern: '^[a-z]+$' }, 'abc')).toEqual([]);
    expect(paths({ type: 'string', pattern: '[0-9]' }, 'ab3c')).toEqual([]);
    expect(paths({ type: 'string', pattern: '^[a-z]+$' }, 'aB')).toEqual(['']);
    expect(checkJson({ type: 'string', pattern: '^[a-z]+$' }, 'aB').errors[0].message).toBe('Must match the pattern ^[a-z]+$.');
    const bad = checkJson({ type: 'string', pattern: '(?<!unclosed' }, 'anything');
    expect(bad).toEqual({ errors: [], exact: false });
    // The library compiles patterns in Unicode mode only: one that only the legacy mode takes (an
    // identity escape like `\_`) is the server's to judge now (the old check tried both modes).
    expect(checkJson({ type: 'string', pattern: '^a\\_b$' }, 'zzz')).toEqual({ errors: [], exact: false });
  });

  it('leaves a pattern that can backtrack for ages to the server instead of freezing the page', () => {
    expect(compilePattern('^(a+)+$')).toBeNull();
    expect(compilePattern('^(a|aa)*$')).toBeNull();
    expect(compilePattern('^[a-z]+$')).not.toBeNull();
    const started = performance.now();
    const r = checkJson({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(40) + '!');
    expect(performance.now() - started).toBeLessThan(100);
    expect(r).toEqual({ errors: [], exact: false });
    // Such a key of patternProperties: nothing is checked here (leaving out one key would send its fields to additionalProperties).
    const props = { type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } }, additionalProperties: false };
    expect(checkJson(props, { ['a'.repeat(40) + '!']: 1 })).toEqual({ errors: [], exact: false });
  });

  it('checks patternProperties (the old check left them to the server)', () => {
    const schema = { type: 'object', patternProperties: { '^n_': { type: 'number' } }, additionalProperties: false };
    expect(checkJson(schema, { n_a: 'x', other: 1 }).errors.map((e) => [e.path, e.message])).toEqual([
      ['/n_a', 'Must be a number.'],
      ['', 'Unknown field "other".'],
    ]);
  });

  it('checks minimum, maximum and their exclusive forms per draft', () => {
    expect(paths({ minimum: 1, maximum: 3 }, 0)).toEqual(['']);
    expect(paths({ minimum: 1, maximum: 3 }, 3)).toEqual([]);
    expect(paths({ exclusiveMinimum: 1 }, 1)).toEqual(['']);
    expect(checkJson({ exclusiveMinimum: 1 }, 1).errors[0].message).toBe('Must be more than 1.');
    expect(paths({ exclusiveMaximum: 3 }, 2.9)).toEqual([]);
    // Draft 4: exclusiveMaximum is a boolean modifier of maximum.
    const d4 = { $schema: D4, maximum: 3, exclusiveMaximum: true };
    expect(paths(d4, 3)).toEqual(['']);
    expect(checkJson(d4, 3).errors[0].message).toBe('Must be less than 3.');
    expect(paths(d4, 2)).toEqual([]);
    // A boolean there in a later draft is not a number: the server refuses the schema, it is not checked here.
    expect(checkJson({ exclusiveMaximum: true }, 5)).toEqual({ errors: [], exact: false });
  });

  it('checks multipleOf of a whole or binary divisor as the jsonschema crate does, and leaves other fractions to the server', () => {
    // The crate's own test cases (keywords/multiple_of.rs) with such divisors, and a few more.
    const valid: [number, number][] = [[2, 4], [1.0, 4.0], [1.5, 3.0], [1.5, 4.5], [5, 0], [3, 9e15], [0.25, 7.75]];
    const invalid: [number, number][] = [[1.0, 4.5], [0.2 * 5, 4.5], [2, 3], [5, 12.5], [0.25, 7.7]];
    for (const [m, v] of valid) expect(paths({ multipleOf: m }, v), `${v} multipleOf ${m}`).toEqual([]);
    for (const [m, v] of invalid) expect(paths({ multipleOf: m }, v), `${v} multipleOf ${m}`).toEqual(['']);
    expect(paths({ type: 'number', multipleOf: 5 }, 12)).toEqual(['']);
    expect(checkJson({ multipleOf: 5 }, 12).errors[0].message).toBe('Must be a multiple of 5.');
    // The library divides in decimal and the crate through floating point: they part on fractional
    // divisors (59.300000000000004, a sum's rounding error, is a multiple of 0.1 to the crate only),
    // so those are the server's to judge and the browser is never the stricter one.
    for (const [m, v] of [[0.1, 59.300000000000004], [0.01, 4.02], [0.1, 4.55]]) {
      expect(checkJson({ multipleOf: m }, v), `${v} multipleOf ${m}`).toEqual({ errors: [], exact: false });
    }
  });

  it('asserts formats only for drafts 4, 6 and 7, as the crate does by default', () => {
    const d7 = { $schema: D7, type: 'string', format: 'email' };
    expect(formatAsserted(d7)).toBe(true);
    expect(paths(d7, 'not an email')).toEqual(['']);
    expect(checkJson(d7, 'not an email').errors[0]).toEqual({ path: '', message: 'Must be an email address.', keyword: 'format' });
    expect(paths(d7, 'ops@example.com')).toEqual([]);
    expect(formatAsserted({ type: 'string', format: 'email' })).toBe(false);
    expect(paths({ type: 'string', format: 'email' }, 'not an email')).toEqual([]);
    expect(checkJson({ $schema: D2019, type: 'string', format: 'date' }, 'soon')).toEqual({ errors: [], exact: true });
    // An unknown format is ignored by the server too: the check stays exact.
    expect(checkJson({ $schema: D7, format: 'colour' }, 'x')).toEqual({ errors: [], exact: true });
    // A known one not checked here is left to the server.
    expect(checkJson({ $schema: D7, format: 'ipv6' }, 'x').exact).toBe(false);
    // One the server does not know, and whose check in the library can backtrack for ages: not checked.
    const started = performance.now();
    expect(checkJson({ $schema: D7, format: 'url' }, 'http://' + 'a'.repeat(30_000) + '!')).toEqual({ errors: [], exact: true });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('recognises dates, times, emails, URIs, IPv4 addresses and host names like the crate (never stricter)', () => {
    expect(valid('date', '2024-02-29')).toBe(true);
    expect(valid('date', '2023-02-29')).toBe(false);
    expect(valid('date', '2024-13-01')).toBe(false);
    expect(valid('date', '2024-1-01')).toBe(false);
    expect(valid('date-time', '2025-01-31T09:30:00Z')).toBe(true);
    expect(valid('date-time', '2025-01-31t09:30:00.123+02:00')).toBe(true);
    expect(valid('date-time', '2025-01-31T09:30:00')).toBe(false); // no zone
    // The library takes a space for the `T` (the old check and the server do not): the server refuses it.
    expect(valid('date-time', '2025-01-31 09:30:00Z')).toBe(true);
    expect(valid('time', '23:59:60Z')).toBe(true);
    expect(valid('time', '24:00:00Z')).toBe(false);
    expect(valid('email', 'ops@example.com')).toBe(true);
    expect(valid('email', '"a b"@example.com')).toBe(true);
    expect(valid('email', 'ops.example.com')).toBe(false);
    expect(valid('email', 'ops@exa mple.com')).toBe(false);
    // What the server takes and the library would not: left to the server.
    expect(valid('email', '山田@example.jp')).toBe(true);
    expect(valid('email', 'Ops <ops@example.com>')).toBe(true);
    expect(valid('uri', 'https://example.com/a?b#c')).toBe(true);
    expect(valid('uri', 'urn:isbn:0451450523')).toBe(true);
    expect(valid('uri', 'urn:')).toBe(true);
    expect(valid('uri', '/relative/path')).toBe(false);
    expect(valid('uri', 'https://exa mple.com')).toBe(false);
    expect(valid('uri', 'http://exa%zzmple.com')).toBe(false);
    expect(valid('ipv4', '192.0.2.1')).toBe(true);
    expect(valid('ipv4', '192.0.2.256')).toBe(false);
    // Leading zeros: the library takes them, the server does not (the old check refused them).
    expect(valid('ipv4', '192.0.2.01')).toBe(true);
    expect(valid('hostname', 'example.com')).toBe(true);
    expect(valid('hostname', '-example.com')).toBe(false);
    expect(checkJson({ $schema: D7, format: 'hostname' }, 'a_b').errors[0].message).toBe('Must be a host name, like example.com.');
  });

  it('checks anyOf, oneOf, allOf and not', () => {
    const any = { anyOf: [{ type: 'string' }, { type: 'number' }] };
    expect(paths(any, 'x')).toEqual([]);
    expect(checkJson(any, true).errors).toEqual([{ path: '', message: 'Matches none of the allowed shapes.', keyword: 'anyOf' }]);
    const one = { oneOf: [{ type: 'number' }, { type: 'integer' }] };
    expect(paths(one, 1.5)).toEqual([]);
    expect(checkJson(one, 2).errors[0].message).toMatch(/more than one/);
    expect(checkJson(one, 'x').errors).toEqual([{ path: '', message: 'Matches none of the allowed shapes.', keyword: 'oneOf' }]);
    expect(paths({ allOf: [{ minimum: 1 }, { maximum: 2 }] }, 3)).toEqual(['']);
    expect(paths({ not: { type: 'string' } }, 'x')).toEqual(['']);
    expect(paths({ not: { type: 'string' } }, 1)).toEqual([]);
  });

  it('follows $ref (the old check left it to the server)', () => {
    const one = { oneOf: [{ type: 'string' }, { type: 'string', $ref: '#/$defs/x' }], $defs: { x: { maxLength: 1 } } };
    expect(checkJson(one, 'long')).toEqual({ errors: [], exact: true });
    expect(checkJson(one, 'y').errors[0].message).toMatch(/more than one/);
    const ref = { type: 'object', properties: { a: { $ref: '#/definitions/n' } }, definitions: { n: { type: 'integer', minimum: 1 } } };
    expect(checkJson(ref, { a: 0 }).errors).toEqual([{ path: '/a', message: 'Must be at least 1.', keyword: 'minimum' }]);
    // One that leads nowhere: the server's to judge.
    expect(checkJson({ not: { $ref: '#/$defs/x' } }, 'x')).toEqual({ errors: [], exact: false });
  });

  it('does not claim "more than one" or "not" when a branch was only partly checked', () => {
    // A pattern left to the server: the branch may well fail there.
    const one = { oneOf: [{ type: 'string' }, { type: 'string', pattern: '^(a+)+$' }] };
    expect(checkJson(one, 'aaa')).toEqual({ errors: [], exact: false });
    expect(checkJson({ not: { type: 'string', pattern: '^(a+)+$' } }, 'x')).toEqual({ errors: [], exact: false });
    // Also through a reference.
    const viaRef = { oneOf: [{ type: 'string' }, { $ref: '#/$defs/p' }], $defs: { p: { type: 'string', pattern: '^(a+)+$' } } };
    expect(checkJson(viaRef, 'aaa')).toEqual({ errors: [], exact: false });
    // An email the server may take is taken here: under `not`, that would refuse it, so `not` is left to the server.
    expect(checkJson({ $schema: D7, not: { format: 'email' } }, '山田@example.jp')).toEqual({ errors: [], exact: false });
  });

  it('refuses unknown fields under additionalProperties: false, at the object', () => {
    const schema = { type: 'object', properties: { a: {} }, additionalProperties: false };
    expect(checkJson(schema, { a: 1, b: 2 }).errors).toEqual([{ path: '', message: 'Unknown field "b".', keyword: 'additionalProperties' }]);
    expect(checkJson({ type: 'object', properties: { a: false } }, { a: 1 }).errors).toEqual([{ path: '/a', message: 'No value is allowed here.', keyword: 'false' }]);
    expect(checkJson(false, 1).errors).toEqual([{ path: '', message: 'No value is allowed here.', keyword: 'false' }]);
  });

  it('treats a field named __proto__ as data', () => {
    const schema = { type: 'object', properties: { ['__proto__']: { type: 'string' } }, required: ['__proto__'] };
    expect(paths(schema, JSON.parse('{"__proto__": 1}'))).toEqual(['/__proto__']);
    expect(paths(schema, JSON.parse('{"__proto__": "x"}'))).toEqual([]);
    expect(paths(schema, {})).toEqual(['/__proto__']);
    const parsed = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}, "required": ["__proto__"]}');
    expect(paths(parsed, JSON.parse('{"__proto__": 1}'))).toEqual(['/__proto__']);
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
    // anyOf of anyOf of …: 2^40 branches without a bound.
    let wide: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) wide = { anyOf: [{ ...wide, minLength: 1000 }, wide] };
    expect(checkJson(wide, 1).exact).toBe(false);
    // References: a loop, and 2^30 ways through a short schema.
    expect(checkJson({ $ref: '#' }, 1)).toEqual({ errors: [], exact: false });
    const defs: Record<string, unknown> = { d30: { type: 'string' } };
    for (let i = 29; i >= 0; i--) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}`, minLength: 5 }, { $ref: `#/$defs/d${i + 1}` }] };
    expect(checkJson({ $ref: '#/$defs/d0', $defs: defs }, 1).exact).toBe(false);
    // A huge value, and uniqueItems on a long list.
    expect(checkJson({ type: 'array', items: { type: 'string' } }, Array.from({ length: 300_000 }, () => 1)).exact).toBe(false);
    const unique = checkJson({ type: 'array', uniqueItems: true, items: { type: 'integer' } }, Array.from({ length: 50_000 }, () => 1));
    expect(unique.exact).toBe(false);
    expect(unique.errors).toEqual([]);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(MAX_SCHEMA_NODES).toBeGreaterThan(1000);
  });

  it('keeps to 200 errors', () => {
    const r = checkJson({ type: 'array', items: { type: 'string' } }, Array.from({ length: 500 }, () => 1));
    expect(r.errors).toHaveLength(200);
    expect(r.exact).toBe(false);
  });
});

describe('checkJson across drafts (the library knows every keyword in every draft; the server does not)', () => {
  it('applies if/then/else from draft 7 on, not in draft 6', () => {
    const cond = { if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] } };
    expect(paths({ $schema: D7, ...cond }, { kind: 'a' })).toEqual(['/a']);
    expect(paths(cond, { kind: 'x' })).toEqual(['/b']);
    expect(checkJson({ $schema: D6, ...cond }, { kind: 'a' })).toEqual({ errors: [], exact: true });
  });

  it('applies const, contains and propertyNames from draft 6 on', () => {
    expect(paths({ $schema: D4, const: 1 }, 2)).toEqual([]);
    expect(paths({ $schema: D6, const: 1 }, 2)).toEqual(['']);
    const contains = { type: 'array', contains: { type: 'integer' } };
    expect(checkJson(contains, ['a', 'b']).errors).toEqual([{ path: '', message: 'Needs an item that matches.', keyword: 'contains' }]);
    expect(paths({ $schema: D4, ...contains }, ['a'])).toEqual([]);
    const names = { type: 'object', propertyNames: { pattern: '^[a-z]+$' } };
    expect(checkJson(names, { ok: 1, 'Not OK': 2 }).errors).toEqual([{ path: '', message: 'The field name "Not OK" is not allowed.', keyword: 'propertyNames' }]);
  });

  it('applies minContains and maxContains from 2019-09 on', () => {
    const counted = { type: 'array', contains: { type: 'integer' }, minContains: 2, maxContains: 3 };
    expect(checkJson(counted, [1, 'a']).errors.map((e) => e.message)).toEqual(['Needs at least 2 items that match.']);
    expect(checkJson(counted, [1, 2, 3, 4]).errors.map((e) => e.message)).toEqual(['Takes at most 3 items that match.']);
    expect(paths({ $schema: D7, ...counted }, [1, 2, 3, 4])).toEqual([]);
  });

  it('applies dependentRequired from 2019-09 on and dependencies in every draft', () => {
    const dep = { type: 'object', dependentRequired: { card: ['expiry'] } };
    expect(checkJson(dep, { card: 'x' }).errors).toEqual([{ path: '/expiry', message: 'This field is required when "card" is given.', keyword: 'dependentRequired' }]);
    expect(paths({ $schema: D7, ...dep }, { card: 'x' })).toEqual([]);
    const old = { $schema: D7, type: 'object', dependencies: { card: ['expiry'], bill: { required: ['address'] } } };
    expect(paths(old, { card: 'x', bill: 1 })).toEqual(['/expiry', '/address']);
  });

  it('applies prefixItems in 2020-12 only, tuples of items before', () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    expect(checkJson(tuple, ['a', 1]).errors).toEqual([{ path: '/1', message: 'No value is allowed here.', keyword: 'false' }]);
    expect(paths({ $schema: D2019, ...tuple }, ['a'])).toEqual(['/0']);
    expect(paths({ $schema: D7, type: 'array', items: [{ type: 'string' }], additionalItems: false }, [1, 2])).toEqual(['/0', '/1']);
  });

  it('leaves $dynamicRef and contentMediaType to the server', () => {
    expect(checkJson({ $dynamicRef: '#meta', type: 'string' }, 'x').exact).toBe(false);
    expect(checkJson({ $schema: D7, contentMediaType: 'application/json', type: 'string' }, '{').exact).toBe(false);
    expect(checkJson({ contentMediaType: 'application/json', type: 'string' }, '{').exact).toBe(true);
  });

  it('checks unevaluatedProperties, and nothing when anything else is left to the server', () => {
    const schema = { type: 'object', properties: { a: {} }, unevaluatedProperties: false };
    expect(checkJson(schema, { a: 1, b: 2 }).errors.map((e) => e.message)).toEqual(['Unknown field "b".']);
    expect(checkJson({ ...schema, anyOf: [{ properties: { b: { pattern: '^(a+)+$' } } }] }, { a: 1, b: 'x' })).toEqual({ errors: [], exact: false });
  });
});

describe('checkJson under the page CSP', () => {
  it('compiles no code: it runs with eval and Function refused', () => {
    const g = globalThis as unknown as { eval: unknown; Function: unknown };
    const [ev, fn] = [g.eval, g.Function];
    const refuse = () => {
      throw new Error('refused by the CSP');
    };
    g.eval = refuse;
    g.Function = refuse;
    try {
      const schema = { $schema: D7, type: 'object', properties: { a: { type: 'string', pattern: '^x', format: 'email' }, b: { $ref: '#/definitions/b' } }, definitions: { b: { enum: [1] } }, required: ['c'] };
      expect(paths(schema, { a: 'y', b: 2 })).toEqual(['/c', '/a', '/a', '/b']);
    } finally {
      g.eval = ev;
      g.Function = fn;
    }
  });
});
