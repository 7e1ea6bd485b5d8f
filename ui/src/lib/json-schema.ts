/**
 * Checks a JSON value against a JSON Schema in the browser, the way the server does before it
 * accepts resume data (the `jsonschema` crate, 0.33, default options): the same keywords, the same
 * JSON pointers in `path` (a missing property is reported at the property itself, as
 * `console::validate_resume` does), friendlier messages (in the console's language, `i18n`
 * `resume`, as of the check).
 *
 * Never stricter than the server. What is not checked here is left to it, and the result says so
 * (`exact: false`): keywords this module does not implement (`$ref`, `if`, tuples, …), formats it
 * does not know, a `pattern` that is not a valid JS regular expression or could backtrack for
 * ages, and anything past the depth, work and error bounds (so a deep or huge schema cannot hang
 * the page). `not` and `oneOf` are only judged on exact sub-results, since a skipped keyword could
 * turn their answer around.
 */

import { i18n, type Messages } from './i18n/index.svelte';

/**
 * One failure, at the JSON pointer of the offending value. `keyword`: the schema keyword that
 * failed, when this module found it (the server's errors carry none).
 */
export type PathError = { path: string; message: string; keyword?: string };

export type CheckResult = {
  errors: PathError[];
  /** False when some of the schema was not checked here: the server may still refuse the value. */
  exact: boolean;
};

/** Sub-schemas deeper than this are left to the server. */
export const MAX_CHECK_DEPTH = 64;
/** Schema-against-value steps per check; past it, the rest is left to the server. */
const MAX_STEPS = 100_000;
/** Errors collected per check; more would not help anyone. */
const MAX_ERRORS = 200;

type Draft = 4 | 6 | 7 | 2019 | 2020;

/** The draft a schema declares in `$schema`; none (or one the crate can't tell) means 2020-12, the crate's default. */
export function schemaDraft(schema: unknown): Draft {
  const s = isObject(schema) && typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-04\b/.test(s)) return 4;
  if (/draft-06\b/.test(s)) return 6;
  if (/draft-07\b/.test(s)) return 7;
  if (/2019-09/.test(s)) return 2019;
  return 2020;
}

/**
 * Whether `format` is an assertion: the crate checks formats by default only for drafts 4, 6 and 7
 * (what Mastra's zod-to-json-schema declares); from 2019-09 on it is an annotation.
 */
export function formatAsserted(rootSchema: unknown): boolean {
  return schemaDraft(rootSchema) <= 7;
}

/** Keywords the server applies that are not checked here. Any other unknown keyword the server ignores too. */
const SKIPPED = new Set([
  '$ref', '$dynamicRef', '$recursiveRef', '$recursiveAnchor', 'if', 'then', 'else', 'prefixItems', 'additionalItems',
  'contains', 'minContains', 'maxContains', 'patternProperties', 'propertyNames', 'dependencies', 'dependentRequired',
  'dependentSchemas', 'unevaluatedItems', 'unevaluatedProperties', 'contentEncoding', 'contentMediaType',
]);

/** Formats the crate knows; the ones checked here are in `FORMATS`, the others are left to it. */
const SERVER_FORMATS = new Set([
  'date', 'date-time', 'duration', 'email', 'hostname', 'idn-email', 'idn-hostname', 'ipv4', 'ipv6', 'iri',
  'iri-reference', 'json-pointer', 'regex', 'relative-json-pointer', 'time', 'uri', 'uri-reference', 'uri-template', 'uuid',
]);

/**
 * Checks `value` against `schema`. `rootSchema` decides the draft (and so whether formats are
 * asserted); `path` is the pointer of `value` in the whole document, for the errors.
 */
export function checkJson(schema: unknown, value: unknown, opts: { rootSchema?: unknown; path?: string } = {}): CheckResult {
  const root = opts.rootSchema ?? schema;
  const ctx: Ctx = { draft: schemaDraft(root), formats: formatAsserted(root), steps: 0, exact: true, errorCount: 0, m: i18n.m.resume };
  const errors: PathError[] = [];
  check(ctx, schema, value, opts.path ?? '', 0, errors);
  return { errors, exact: ctx.exact };
}

type Ctx = { draft: Draft; formats: boolean; steps: number; exact: boolean; errorCount: number; m: Messages['resume'] };

function check(ctx: Ctx, schema: unknown, value: unknown, path: string, depth: number, out: PathError[]): void {
  if (++ctx.steps > MAX_STEPS || depth > MAX_CHECK_DEPTH || ctx.errorCount >= MAX_ERRORS) {
    ctx.exact = false;
    return;
  }
  const add = (p: string, message: string, keyword?: string) => {
    if (ctx.errorCount >= MAX_ERRORS) {
      ctx.exact = false;
      return;
    }
    ctx.errorCount++;
    out.push(keyword ? { path: p, message, keyword } : { path: p, message });
  };
  if (schema === true) return;
  const m = ctx.m;
  if (schema === false) return add(path, m.noValueAllowed);
  if (!isObject(schema)) return; // The server would refuse the schema itself; nothing to say about the value.
  // Before 2019-09, `$ref` replaces the whole schema it sits in: nothing else in it applies.
  if ('$ref' in schema && ctx.draft <= 7) {
    ctx.exact = false;
    return;
  }
  for (const k of Object.keys(schema)) {
    if (SKIPPED.has(k) && !(k === 'if' && !('then' in schema) && !('else' in schema))) ctx.exact = false;
  }

  // type
  if ('type' in schema) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeof t === 'string' && hasType(value, t))) {
      const names = types.filter((t): t is string => typeof t === 'string').map((t) => typeName(m, t));
      add(path, m.mustBeType(names.length > 1 ? m.or(names.slice(0, -1).join(m.listSeparator), names[names.length - 1]) : (names[0] ?? m.otherType)));
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, value))) {
    add(path, m.mustBeOneOf(`${schema.enum.slice(0, 10).map(show).join(', ')}${schema.enum.length > 10 ? ', …' : ''}`));
  }
  if ('const' in schema && !jsonEqual(schema.const, value)) add(path, m.mustEqual(show(schema.const)));

  if (typeof value === 'string') checkString(ctx, schema, value, path, add);
  if (typeof value === 'number') checkNumber(ctx, schema, value, path, add);
  if (Array.isArray(value)) {
    if (isNumber(schema.minItems) && value.length < schema.minItems) add(path, m.minItems(schema.minItems));
    if (isNumber(schema.maxItems) && value.length > schema.maxItems) add(path, m.maxItems(schema.maxItems));
    if (schema.uniqueItems === true) {
      // Quadratic: a very long list is left to the server.
      if (value.length > 2000) ctx.exact = false;
      else if (!allUnique(value)) add(path, m.uniqueItems);
    }
    // `items` as one schema applies to every item; as an array (a tuple, before 2020-12) it is skipped above.
    if ('items' in schema && !Array.isArray(schema.items) && !('prefixItems' in schema)) {
      value.forEach((item, i) => check(ctx, schema.items, item, `${path}/${i}`, depth + 1, out));
    } else if (Array.isArray(schema.items)) ctx.exact = false;
  }
  if (isObject(value)) {
    const props = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) {
        if (typeof name === 'string' && !hasOwn(value, name)) add(`${path}/${pointerToken(name)}`, m.requiredField, 'required');
      }
    }
    for (const name of Object.keys(value)) {
      if (hasOwn(props, name)) check(ctx, props[name], value[name], `${path}/${pointerToken(name)}`, depth + 1, out);
      else if ('additionalProperties' in schema && !('patternProperties' in schema)) {
        if (schema.additionalProperties === false) add(path, m.unknownField(show(name)));
        else check(ctx, schema.additionalProperties, value[name], `${path}/${pointerToken(name)}`, depth + 1, out);
      }
    }
    const n = Object.keys(value).length;
    if (isNumber(schema.minProperties) && n < schema.minProperties) add(path, m.minFields(schema.minProperties));
    if (isNumber(schema.maxProperties) && n > schema.maxProperties) add(path, m.maxFields(schema.maxProperties));
  }

  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) check(ctx, s, value, path, depth + 1, out);
  if (Array.isArray(schema.anyOf)) {
    // Valid under one is enough; a skipped keyword only makes a branch look valid (never stricter).
    if (!schema.anyOf.some((s) => sub(ctx, s, value, path, depth).errors.length === 0)) add(path, m.matchesNone, 'anyOf');
  }
  if (Array.isArray(schema.oneOf)) {
    const results = schema.oneOf.map((s) => sub(ctx, s, value, path, depth));
    const valid = results.filter((r) => r.errors.length === 0);
    if (valid.length === 0) add(path, m.matchesNone, 'oneOf');
    // "More than one" is only sure when the branches were checked in full.
    else if (valid.length > 1 && valid.every((r) => r.exact)) add(path, m.matchesMany, 'oneOf');
    else if (valid.length > 1) ctx.exact = false;
  }
  if ('not' in schema) {
    const r = sub(ctx, schema.not, value, path, depth);
    if (r.errors.length === 0 && r.exact) add(path, m.notAllowed);
    else if (r.errors.length === 0) ctx.exact = false;
  }
}

/** A sub-check whose errors are not reported as such (combinators), with its own exactness. */
function sub(ctx: Ctx, schema: unknown, value: unknown, path: string, depth: number): CheckResult {
  const inner: Ctx = { ...ctx, exact: true, errorCount: 0 };
  const errors: PathError[] = [];
  check(inner, schema, value, path, depth + 1, errors);
  ctx.steps = inner.steps;
  if (!inner.exact) ctx.exact = false;
  return { errors, exact: inner.exact };
}

function checkString(ctx: Ctx, schema: Record<string, unknown>, value: string, path: string, add: (p: string, m: string) => void) {
  // The crate counts characters (Unicode scalar values), not UTF-16 units.
  const len = isNumber(schema.minLength) || isNumber(schema.maxLength) ? [...value].length : 0;
  const m = ctx.m;
  if (isNumber(schema.minLength) && len < schema.minLength) add(path, m.minLength(schema.minLength));
  if (isNumber(schema.maxLength) && len > schema.maxLength) add(path, m.maxLength(schema.maxLength));
  if (typeof schema.pattern === 'string') {
    const re = compilePattern(schema.pattern);
    if (!re) ctx.exact = false;
    else if (!re.test(value)) add(path, m.pattern(schema.pattern));
  }
  if (typeof schema.format === 'string' && ctx.formats && SERVER_FORMATS.has(schema.format)) {
    const f = FORMATS[schema.format];
    if (!f) ctx.exact = false;
    else if (!f.test(value)) add(path, m.formats[f.message]);
  }
}

function checkNumber(ctx: Ctx, schema: Record<string, unknown>, value: number, path: string, add: (p: string, m: string) => void) {
  const m = ctx.m;
  const draft4 = ctx.draft === 4;
  if (isNumber(schema.minimum)) {
    const exclusive = draft4 && schema.exclusiveMinimum === true;
    if (exclusive ? value <= schema.minimum : value < schema.minimum) add(path, exclusive ? m.moreThan(schema.minimum) : m.atLeast(schema.minimum));
  }
  if (isNumber(schema.maximum)) {
    const exclusive = draft4 && schema.exclusiveMaximum === true;
    if (exclusive ? value >= schema.maximum : value > schema.maximum) add(path, exclusive ? m.lessThan(schema.maximum) : m.atMost(schema.maximum));
  }
  if (!draft4 && isNumber(schema.exclusiveMinimum) && value <= schema.exclusiveMinimum) add(path, m.moreThan(schema.exclusiveMinimum));
  if (!draft4 && isNumber(schema.exclusiveMaximum) && value >= schema.exclusiveMaximum) add(path, m.lessThan(schema.exclusiveMaximum));
  if (isNumber(schema.multipleOf) && schema.multipleOf > 0 && !isMultipleOf(value, schema.multipleOf)) add(path, m.multipleOf(schema.multipleOf));
}

/**
 * The crate's `multipleOf`: for a whole divisor, `value % m == 0` on a whole value. For a
 * fractional one, both numbers become fractions the way the `fraction` crate converts an f64 (scaled
 * by the first power of ten that makes it whole to within EPSILON: 0.1 is 1/10, 12.2 is 122/10)
 * and the quotient must be whole; a value below the divisor is not a multiple, zero is. So 0.3 is a
 * multiple of 0.1 here exactly when the server says so.
 */
export function isMultipleOf(value: number, multiple: number): boolean {
  if (Number.isInteger(multiple)) return Number.isInteger(value) && value % multiple === 0;
  if (value === 0) return true;
  if (value < multiple) return false;
  const a = crateFraction(value);
  const b = crateFraction(multiple);
  if (!a || !b || b.n === 0n) return true; // beyond what is mirrored here: the server decides
  // (a.n / a.d) / (b.n / b.d) = (a.n · b.d) / (a.d · b.n)
  return (a.n * b.d) % (a.d * b.n) === 0n;
}

/** `GenericFraction::<BigInt>::from(f64)` of the `fraction` crate, for a finite non-zero value (sign dropped). */
function crateFraction(val: number): { n: bigint; d: bigint } | null {
  let p = 0;
  let scaled = val;
  while (Math.abs(Math.floor(scaled) - scaled) >= Number.EPSILON) {
    p += 1;
    scaled = val * powi(10, p);
    if (!Number.isFinite(scaled)) return null; // the crate falls back to parsing the printed number
  }
  return { n: BigInt(Math.trunc(Math.abs(scaled))), d: BigInt(powi(10, p)) };
}

/** Rust's `f64::powi` (LLVM's `__powidf2`: square and multiply), rounding step by step as it does. */
function powi(a: number, b: number): number {
  let r = 1;
  for (;;) {
    if (b & 1) r *= a;
    b = Math.trunc(b / 2);
    if (b === 0) break;
    a *= a;
  }
  return r;
}

const patternCache = new Map<string, RegExp | null>();

/**
 * A schema `pattern` as a JS regular expression (Unicode mode, else legacy), or null when it is
 * not one JS can compile, or when it nests quantifiers (`(a+)+`, `(a|a)*`), which can backtrack for
 * minutes on a short input and freeze the page: those are left to the server.
 */
export function compilePattern(pattern: string): RegExp | null {
  if (patternCache.has(pattern)) return patternCache.get(pattern)!;
  let re: RegExp | null = null;
  if (!mayBacktrackForAges(pattern)) {
    for (const flags of ['u', '']) {
      try {
        re = new RegExp(pattern, flags);
        break;
      } catch {
        // try the next flags
      }
    }
  }
  if (patternCache.size > 500) patternCache.clear();
  patternCache.set(pattern, re);
  return re;
}

/** A group holding a quantifier or an alternation, itself repeated: the classic catastrophic shapes. */
function mayBacktrackForAges(pattern: string): boolean {
  const stack: { risky: boolean }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // Skip a character class: its quantifier-looking characters are literals.
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      continue;
    }
    if (c === '(') stack.push({ risky: false });
    else if (c === ')') {
      const g = stack.pop();
      const next = pattern[i + 1];
      if (g?.risky && (next === '*' || next === '+' || next === '{')) return true;
      if (g?.risky && stack.length) stack[stack.length - 1].risky = true;
    } else if ((c === '*' || c === '+' || c === '{' || c === '|') && stack.length) stack[stack.length - 1].risky = true;
  }
  return false;
}

/** Formats checked here; `message` names the words (`i18n` `resume.formats`). */
const FORMATS: Record<string, { test: (s: string) => boolean; message: keyof Messages['resume']['formats'] }> = {
  date: { test: isDate, message: 'date' },
  'date-time': { test: isDateTime, message: 'date-time' },
  time: { test: isTime, message: 'time' },
  email: { test: isEmail, message: 'email' },
  'idn-email': { test: isEmail, message: 'email' },
  uri: { test: isUri, message: 'uri' },
  ipv4: { test: isIpv4, message: 'ipv4' },
};

/** RFC 3339 full-date, as the crate checks it (the day must exist in that month). */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

/** RFC 3339 full-time: a zone is required. (A leap second is accepted at any minute: laxer than the crate, never stricter.) */
export function isTime(s: string): boolean {
  const m = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/.exec(s);
  if (!m) return false;
  return Number(m[1]) <= 23 && Number(m[2]) <= 59 && Number(m[3]) <= 60 && (m[5] === undefined || (Number(m[5]) <= 23 && Number(m[6]) <= 59));
}

export function isDateTime(s: string): boolean {
  const t = s.search(/[Tt]/);
  return t !== -1 && isDate(s.slice(0, t)) && isTime(s.slice(t + 1));
}

/** Something@somewhere with no spaces in the domain: laxer than the crate's RFC 5321 parser, never stricter. */
export function isEmail(s: string): boolean {
  const at = s.lastIndexOf('@');
  return at > 0 && at < s.length - 1 && !/\s/.test(s.slice(at + 1));
}

/** A scheme, a colon, and no whitespace (RFC 3986 allows none): laxer than the crate, never stricter. */
export function isUri(s: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(s);
}

/** Dotted-quad, no leading zeros (Rust's `Ipv4Addr` parser). */
function isIpv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    default:
      return false;
  }
}

function typeName(m: Messages['resume'], t: string): string {
  return Object.hasOwn(m.types, t) ? m.types[t as keyof Messages['resume']['types']] : t;
}

/** JSON equality: key order does not matter, `1` and `1.0` are one number. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function allUnique(items: unknown[]): boolean {
  for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) if (jsonEqual(items[i], items[j])) return false;
  return true;
}

/** A value as it appears in a message: strings quoted, everything as JSON. */
function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + '…' : s;
}

/** One segment of a JSON pointer (RFC 6901). */
export function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own property only: a field named `__proto__` or `constructor` is data, not the prototype. */
export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

