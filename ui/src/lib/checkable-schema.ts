/**
 * What of a JSON Schema the browser checks: a copy of it for `@cfworker/json-schema` (run by
 * `json-schema.ts`) that the library judges like the server's `jsonschema` crate (0.33, default
 * options), or more leniently — never more strictly, so the browser never refuses what the server
 * would take. Everything the copy leaves out is the server's to judge, and the copy says so
 * (`exact: false`):
 *
 * - keywords the server does not know in the schema's draft are dropped (it ignores them too:
 *   `if` before draft 7, `prefixItems` before 2020-12, …); keywords the server applies and the
 *   library does not (`$dynamicRef`, `$recursiveRef`, `contentMediaType`, …) are left to it;
 * - `format` only where the server asserts it (drafts 4, 6 and 7), and only the formats the
 *   library checks as the server does (`CHECKED_FORMATS`); an email address outside plain ASCII
 *   (or with a display name, a quoted or bracketed part) and a URI with an empty path are taken
 *   as valid here, the server deciding;
 * - a `pattern` JS cannot compile in Unicode mode, or that nests quantifiers and could backtrack
 *   for minutes (`(a+)+`), is left out; a `patternProperties` key like that, and the library gets
 *   nothing to check at all;
 * - `uniqueItems` when the value holds a list longer than `LONG_LIST` (the check is quadratic);
 * - keywords whose value is not of the type the specification says (the server refuses such a
 *   schema);
 * - sub-schemas deeper than `MAX_CHECK_DEPTH`, or past `MAX_SCHEMA_NODES` in all (a schema shared
 *   many times over is copied once per use), are taken as `true`.
 *
 * Leaving something out makes a schema accept more, except under `not`, `oneOf`, `if` (its
 * condition) and a `contains` with `maxContains`, where accepting more can refuse more: such a
 * keyword is then left out whole. A `$ref` may lead from there to what was left out elsewhere, so
 * with references those keywords go too; with `unevaluatedProperties`/`unevaluatedItems` (which
 * depend on what the rest accepted), nothing is checked here once anything was left out.
 *
 * A `false` sub-schema is copied as `{"not": {}}` (listed in `falses`), which the library reports
 * at the schema's own place (it reports `false` itself at the value's).
 */
import { hasOwn, isObject } from './json-value';

/** The draft a schema declares; 2020-12 when none (the crate's default). */
export type Draft = 4 | 6 | 7 | 2019 | 2020;

/** Sub-schemas deeper than this are left to the server. */
export const MAX_CHECK_DEPTH = 64;
/** Sub-schemas copied in all; past it, the rest is left to the server. */
export const MAX_SCHEMA_NODES = 20_000;
/** A list longer than this is not checked for `uniqueItems` here. */
export const LONG_LIST = 2000;

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

/** The copy handed to the library. */
export type CheckableSchema = {
  /** `true` when nothing is left to check here. */
  schema: Record<string, unknown> | true;
  /** False when some of the schema is the server's to judge: it may still refuse the value. */
  exact: boolean;
  /** The copies of `false` sub-schemas. */
  falses: WeakSet<object>;
  /** The checks of formats that may be valid where the library says not (`{anyOf: [{format}, {pattern}]}`), by format. */
  formatChecks: WeakMap<object, string>;
};

/** Formats the library checks as the server does (or more leniently: `ipv4` with leading zeros, a space for the `T`). */
const CHECKED_FORMATS = new Set(['date', 'date-time', 'time', 'ipv4', 'hostname']);
/** Formats the library checks, except for the values matching `pattern`: those it refuses and the server may take. */
const FORMAT_DOUBTS: Record<string, string> = {
  // Non-ASCII local parts, display names ("Ops <ops@example.com>"), quoted parts, address literals.
  email: '[^\\x00-\\x7F]|["<\\[]',
  // An empty path ("urn:"), which RFC 3986 allows.
  uri: '^[A-Za-z][A-Za-z0-9+.\\-]*:(?:[?#]|$)',
};
/** Formats the server knows and the library does not check as it does: left to the server. */
const SERVER_FORMATS = new Set([
  'duration', 'idn-email', 'idn-hostname', 'ipv6', 'iri', 'iri-reference', 'json-pointer', 'regex',
  'relative-json-pointer', 'uri-reference', 'uri-template', 'uuid',
]);

/** Keywords the server knows only from a draft on (before it, it ignores them). */
const SINCE: Record<string, Draft> = {
  const: 6, contains: 6, propertyNames: 6, if: 7, then: 7, else: 7,
  dependentRequired: 2019, dependentSchemas: 2019, unevaluatedItems: 2019, unevaluatedProperties: 2019,
  minContains: 2019, maxContains: 2019, $recursiveRef: 2019, prefixItems: 2020, $dynamicRef: 2020,
};
/** Keywords the server applies that the library does not (or not as it does), by the drafts where the server does. */
const SERVER_ONLY: Record<string, Draft[]> = {
  $recursiveRef: [2019], $dynamicRef: [2020], contentMediaType: [6, 7], contentEncoding: [6, 7],
};
/** Words only: never copied. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'readOnly', 'writeOnly', 'deprecated']);

const ONE_SCHEMA = new Set(['additionalItems', 'unevaluatedItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'not', 'if', 'then', 'else']);
const SCHEMA_LIST = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
const SCHEMA_MAP = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas']);
const COUNTS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains']);
const NUMBERS = new Set(['minimum', 'maximum']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);

type Walk = {
  draft: Draft;
  formats: boolean;
  uniqueItems: boolean;
  nodes: number;
  /** A `$ref` counts as left out (second pass: something was, and it may lead there). */
  refsDoubtful: boolean;
  hasRef: boolean;
  hasUnevaluated: boolean;
  patternKeysUnsafe: boolean;
  /** Something was left out, anywhere. */
  loosened: boolean;
  falses: WeakSet<object>;
  formatChecks: WeakMap<object, string>;
};

type Copy = { schema: unknown; loosened: boolean };

/** The copy of `schema` (of draft `draft`) to check a value with; `uniqueItems: false` when the value holds a long list. */
export function checkableSchema(schema: unknown, draft: Draft, opts: { uniqueItems: boolean }): CheckableSchema {
  const walk = (refsDoubtful: boolean): { w: Walk; c: Copy } => {
    const w: Walk = {
      draft,
      formats: draft <= 7,
      uniqueItems: opts.uniqueItems,
      nodes: 0,
      refsDoubtful,
      hasRef: false,
      hasUnevaluated: false,
      patternKeysUnsafe: false,
      loosened: false,
      falses: new WeakSet(),
      formatChecks: new WeakMap(),
    };
    return { w, c: copy(w, schema, 0) };
  };
  let { w, c } = walk(false);
  if (w.loosened && w.hasRef) ({ w, c } = walk(true));
  const nothing = { schema: true as const, exact: false, falses: w.falses, formatChecks: w.formatChecks };
  if (w.patternKeysUnsafe || (w.loosened && w.hasUnevaluated)) return nothing;
  if (!isObject(c.schema)) return { ...nothing, exact: !w.loosened };
  return { schema: c.schema, exact: !w.loosened, falses: w.falses, formatChecks: w.formatChecks };
}

function copy(w: Walk, s: unknown, depth: number): Copy {
  if (s === true) return { schema: true, loosened: false };
  if (s === false) {
    const f = { not: {} };
    w.falses.add(f);
    return { schema: f, loosened: false };
  }
  // Not a schema (the server refuses it), too deep, or past the bound: accepts anything here.
  if (!isObject(s) || ++w.nodes > MAX_SCHEMA_NODES || depth > MAX_CHECK_DEPTH) {
    w.loosened = true;
    return { schema: true, loosened: true };
  }
  const out: Record<string, unknown> = {};
  let loosened = false;
  const sub = (v: unknown) => {
    const c = copy(w, v, depth + 1);
    if (c.loosened) loosened = true;
    return c;
  };
  const keep = (k: string, v: unknown) => setOwn(out, k, v);
  const leave = () => {
    loosened = true;
    w.loosened = true;
  };
  /** Format checks that may be wrong the strict way, added to `allOf` once it is copied. */
  const checks: object[] = [];
  const flips: { keys: string[]; loosened: boolean }[] = [];
  // A keyword where accepting more can refuse more: copied on its own, left out whole if anything in it was.
  const flipping = (keys: string[], run: () => void) => {
    const before = loosened;
    loosened = false;
    run();
    flips.push({ keys, loosened });
    loosened = before || loosened;
  };

  for (const k of Object.keys(s)) {
    const v = s[k];
    if (ANNOTATIONS.has(k)) continue;
    if (SINCE[k] !== undefined && w.draft < SINCE[k]) continue;
    if (SERVER_ONLY[k]) {
      if (SERVER_ONLY[k].includes(w.draft)) leave();
      continue;
    }
    if (k === '$ref') {
      if (typeof v !== 'string') leave();
      else {
        keep(k, v);
        w.hasRef = true;
        if (w.refsDoubtful) loosened = true;
      }
    } else if (k === 'not' || k === 'if') {
      flipping(k === 'if' ? ['if', 'then', 'else'] : [k], () => keep(k, sub(v).schema));
    } else if (k === 'contains') {
      const counted = w.draft >= 2019 && isCount(s.maxContains);
      if (counted) flipping(['contains', 'minContains', 'maxContains'], () => keep(k, sub(v).schema));
      else keep(k, sub(v).schema);
    } else if (k === 'oneOf') {
      if (!Array.isArray(v)) leave();
      else flipping([k], () => keep(k, v.map((x) => sub(x).schema)));
    } else if (k === 'items' && Array.isArray(v)) {
      keep(k, v.map((x) => sub(x).schema));
    } else if (k === 'items' || ONE_SCHEMA.has(k)) {
      if (k === 'unevaluatedItems' || k === 'unevaluatedProperties') w.hasUnevaluated = true;
      keep(k, sub(v).schema);
    } else if (SCHEMA_LIST.has(k)) {
      if (!Array.isArray(v)) leave();
      else keep(k, v.map((x) => sub(x).schema));
    } else if (SCHEMA_MAP.has(k)) {
      if (!isObject(v)) leave();
      else {
        if (k === 'patternProperties' && Object.keys(v).some((p) => !compilePattern(p))) w.patternKeysUnsafe = true;
        const m: Record<string, unknown> = {};
        for (const name of Object.keys(v)) setOwn(m, name, sub(v[name]).schema);
        keep(k, m);
      }
    } else if (k === 'dependencies') {
      if (!isObject(v)) leave();
      else {
        const m: Record<string, unknown> = {};
        for (const name of Object.keys(v)) {
          const d = v[name];
          if (isStrings(d)) setOwn(m, name, d);
          else setOwn(m, name, sub(d).schema);
        }
        keep(k, m);
      }
    } else if (k === 'type') {
      const types = Array.isArray(v) ? v : [v];
      if (types.every((t) => typeof t === 'string' && TYPES.has(t))) keep(k, v);
      else leave();
    } else if (k === 'const') {
      keep(k, v);
    } else if (k === 'enum') {
      if (Array.isArray(v)) keep(k, v);
      else leave();
    } else if (k === 'required') {
      if (isStrings(v)) keep(k, v);
      else leave();
    } else if (k === 'dependentRequired') {
      if (isObject(v) && Object.values(v).every(isStrings)) keep(k, v);
      else leave();
    } else if (COUNTS.has(k)) {
      if (isCount(v)) keep(k, v);
      else leave();
    } else if (NUMBERS.has(k)) {
      if (isNumber(v)) keep(k, v);
      else leave();
    } else if (k === 'exclusiveMinimum' || k === 'exclusiveMaximum') {
      // Draft 4: a boolean beside minimum/maximum; then a number of its own.
      if (w.draft === 4 ? typeof v === 'boolean' : isNumber(v)) keep(k, v);
      else leave();
    } else if (k === 'multipleOf') {
      // The library divides in decimal, the crate through floating point: they agree where the
      // divisor is a whole number or a whole number of 1/1024ths (division by it is exact in binary),
      // and part on other fractions (59.300000000000004 is a multiple of 0.1 to the crate only).
      if (isNumber(v) && v > 0 && Number.isSafeInteger(v * 1024)) keep(k, v);
      else leave();
    } else if (k === 'uniqueItems') {
      if (typeof v !== 'boolean') leave();
      else if (v && !w.uniqueItems) leave();
      else keep(k, v);
    } else if (k === 'pattern') {
      if (typeof v === 'string' && compilePattern(v)) keep(k, v);
      else leave();
    } else if (k === 'format') {
      if (!w.formats || typeof v !== 'string') continue;
      if (CHECKED_FORMATS.has(v)) keep(k, v);
      else if (hasOwn(FORMAT_DOUBTS, v)) {
        const check = { anyOf: [{ format: v }, { pattern: FORMAT_DOUBTS[v] }] };
        w.formatChecks.set(check, v);
        checks.push(check);
        leave();
      } else if (SERVER_FORMATS.has(v)) leave();
    } else if (isObject(v)) {
      // Not a keyword: kept as a place a `$ref` may point to.
      keep(k, copy(w, v, depth + 1).schema);
    } else keep(k, v);
  }
  if (checks.length) keep('allOf', [...((out.allOf as unknown[] | undefined) ?? []), ...checks]);
  for (const { keys, loosened: l } of flips) if (l) for (const key of keys) delete out[key];
  return { schema: out, loosened };
}

/** Sets a property, `__proto__` included, as data. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function isStrings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function isCount(v: unknown): v is number {
  return isNumber(v) && v >= 0;
}

const patternCache = new Map<string, RegExp | null>();

/**
 * A schema `pattern` as the library compiles it (a JS regular expression in Unicode mode), or null
 * when JS cannot compile it so, or when it nests quantifiers (`(a+)+`, `(a|a)*`), which can
 * backtrack for minutes on a short input and freeze the page: those are left to the server.
 */
export function compilePattern(pattern: string): RegExp | null {
  if (patternCache.has(pattern)) return patternCache.get(pattern)!;
  let re: RegExp | null = null;
  if (!mayBacktrackForAges(pattern)) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      // left to the server
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
