/**
 * Checks a JSON value against a JSON Schema in the browser, the way the server does before it
 * accepts resume data (the `jsonschema` crate), with `@cfworker/json-schema` (it interprets the
 * schema: no code generated, so it runs under the page's strict CSP). What the library is handed is
 * the schema's checkable copy (`checkable-schema.ts`): never stricter than the server; what is not
 * checked here is left to it, and the result says so (`exact: false`).
 *
 * The library's output (keyword, keyword location, instance location) becomes the errors the form
 * shows: each at the JSON pointer of the offending value (a missing property at the property
 * itself, as `console::validate_resume` does), in the console's language (`i18n` `resume`). An
 * `anyOf`/`oneOf` says "matches none" (or "more than one") without its branches' errors, as the
 * server does (the form works out the chosen branch's own: `resume-data.ts`).
 *
 * Bounded, so a huge or hostile schema or value cannot hang the page: `$ref`s followed
 * (`MAX_REFS`), values looked at (`MAX_VALUE_NODES`), errors kept (`MAX_ERRORS`), besides the
 * copy's own bounds.
 */
import { dereference, validate, type OutputUnit, type SchemaDraft } from '@cfworker/json-schema';
import { checkableSchema, LONG_LIST, schemaDraft, type CheckableSchema, type Draft } from './checkable-schema';
import { i18n, type Messages } from './i18n/index.svelte';
import { hasOwn, isObject, pointerToken } from './json-value';

/** One failure, at the JSON pointer of the offending value; `keyword`: the schema keyword that failed. */
export type PathError = { path: string; message: string; keyword?: string };

export type CheckResult = {
  errors: PathError[];
  /** False when some of the schema was not checked here: the server may still refuse the value. */
  exact: boolean;
};

/** `$ref`s followed per check; past it, the rest is left to the server. */
const MAX_REFS = 10_000;
/** Values (objects, lists, scalars) of the checked data; more, and the server alone checks it. */
const MAX_VALUE_NODES = 200_000;
/** Errors kept per check; more would not help anyone. */
const MAX_ERRORS = 200;

/** The library's name of each draft (it has no draft 6: draft 7 less `if`, dropped for draft 6 by the copy). */
const LIBRARY_DRAFT: Record<Draft, SchemaDraft> = { 4: '4', 6: '7', 7: '7', 2019: '2019-09', 2020: '2020-12' };

type Prepared = CheckableSchema & { lookup: Record<string, unknown> };
const prepared = new WeakMap<object, Map<string, Prepared>>();

/** The cache's key for the schema `false`. */
const FALSE_KEY = {};

/** The checkable copy of `schema`, with the library's `$ref` table, made once per schema, draft and list length. */
function prepare(schema: Record<string, unknown> | false, draft: Draft, uniqueItems: boolean): Prepared {
  const key = `${draft}:${uniqueItems}`;
  const cacheKey = schema === false ? FALSE_KEY : schema;
  let bySchema = prepared.get(cacheKey);
  const known = bySchema?.get(key);
  if (known) return known;
  const c = checkableSchema(schema, draft, { uniqueItems });
  let p: Prepared;
  try {
    p = { ...c, lookup: c.schema === true ? {} : (dereference(c.schema) as Record<string, unknown>) };
  } catch {
    // Duplicate or malformed ids: the server's to judge.
    p = { ...c, schema: true, exact: false, lookup: {} };
  }
  if (!bySchema) prepared.set(cacheKey, (bySchema = new Map()));
  bySchema.set(key, p);
  return p;
}

/**
 * Checks `value` against `schema`. `rootSchema` decides the draft (and so whether formats are
 * asserted); `path` is the pointer of `value` in the whole document, for the errors.
 */
export function checkJson(schema: unknown, value: unknown, opts: { rootSchema?: unknown; path?: string } = {}): CheckResult {
  const draft = schemaDraft(opts.rootSchema ?? schema);
  const base = opts.path ?? '';
  // `true`, or not a schema at all (the server refuses it): nothing to say about the value.
  if (schema !== false && !isObject(schema)) return { errors: [], exact: true };
  const size = measure(value);
  if (size === null) return { errors: [], exact: false };
  const p = prepare(schema, draft, !size.longList);
  if (p.schema === true) return { errors: [], exact: p.exact };
  let units: OutputUnit[];
  try {
    units = validate(value, p.schema, LIBRARY_DRAFT[draft], boundedLookup(p.lookup) as never, false).errors;
  } catch {
    // A `$ref` it could not resolve, too many of them, a value too deep for the stack: the server's to judge.
    return { errors: [], exact: false };
  }
  const errors = dedupe(describe(units, p, value, base, i18n.m.resume));
  if (errors.length > MAX_ERRORS) return { errors: errors.slice(0, MAX_ERRORS), exact: false };
  return { errors, exact: p.exact };
}


/** The `$ref` table, refusing (throwing) past `MAX_REFS` look-ups: a recursive schema cannot loop for ever. */
function boundedLookup(lookup: Record<string, unknown>): Record<string, unknown> {
  let n = 0;
  return new Proxy(lookup, {
    get(target, key, receiver) {
      if (++n > MAX_REFS) throw new RangeError('too many $ref');
      return Reflect.get(target, key, receiver);
    },
  });
}

/** Whether the value holds a long list (for `uniqueItems`); `null` when it is too big to check here. */
function measure(value: unknown): { longList: boolean } | null {
  let nodes = 0;
  let longList = false;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (++nodes > MAX_VALUE_NODES) return null;
    if (Array.isArray(v)) {
      if (v.length > LONG_LIST) longList = true;
      for (const x of v) stack.push(x);
    } else if (isObject(v)) for (const k of Object.keys(v)) stack.push(v[k]);
  }
  return { longList };
}

/** The library's errors in words, at JSON pointers. */
function describe(units: OutputUnit[], p: Prepared, value: unknown, base: string, m: Messages['resume']): PathError[] {
  // The branches of a failed `anyOf`/`oneOf`, the items tried by `contains`, the names tried by
  // `propertyNames`: not errors of their own.
  const inner: string[] = [];
  for (const u of units) {
    if (u.keyword === 'anyOf' || u.keyword === 'oneOf' || u.keyword === 'contains' || u.keyword === 'propertyNames') inner.push(`${u.keywordLocation}/`);
    if (u.keyword === 'minContains' || u.keyword === 'maxContains') inner.push(`${parentOf(u.keywordLocation)}/contains/`);
  }
  const out: PathError[] = [];
  units.forEach((u, i) => {
    if (inner.some((prefix) => u.keywordLocation.startsWith(prefix))) return;
    const at = base + pointerOf(u.instanceLocation);
    const add = (message: string, path = at) => out.push({ path, message, keyword: u.keyword });
    const owner = () => resolve(p, parentOf(u.keywordLocation));
    const own = (k: string) => {
      const s = owner();
      return isObject(s) ? s[k] : undefined;
    };
    switch (u.keyword) {
      case 'type':
        return add(mustBeType(m, own('type')));
      case 'enum': {
        const values = Array.isArray(own('enum')) ? (own('enum') as unknown[]) : [];
        return add(m.mustBeOneOf(`${values.slice(0, 10).map(show).join(', ')}${values.length > 10 ? ', …' : ''}`));
      }
      case 'const':
        return add(m.mustEqual(show(own('const'))));
      case 'required':
      case 'dependentRequired':
      case 'dependencies':
        return missing(u, owner(), valueAt(value, u.instanceLocation), at, m).forEach((e) => out.push(e));
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
      case 'multipleOf':
      case 'minContains':
      case 'maxContains':
        return add(m[u.keyword](Number(own(u.keyword))));
      case 'minProperties':
        return add(m.minFields(Number(own(u.keyword))));
      case 'maxProperties':
        return add(m.maxFields(Number(own(u.keyword))));
      case 'minimum':
        // Draft 4: `exclusiveMinimum: true` makes it "more than".
        return add(own('exclusiveMinimum') === true ? m.moreThan(Number(own('minimum'))) : m.atLeast(Number(own('minimum'))));
      case 'maximum':
        return add(own('exclusiveMaximum') === true ? m.lessThan(Number(own('maximum'))) : m.atMost(Number(own('maximum'))));
      case 'exclusiveMinimum':
        return add(m.moreThan(Number(own(u.keyword))));
      case 'exclusiveMaximum':
        return add(m.lessThan(Number(own(u.keyword))));
      case 'uniqueItems':
        return add(m.uniqueItems);
      case 'pattern':
        return add(m.pattern(String(own('pattern'))));
      case 'format':
        return add(formatMessage(m, String(own('format'))));
      case 'anyOf': {
        const checked = p.formatChecks.get(owner() as object);
        if (checked) return out.push({ path: at, message: formatMessage(m, checked), keyword: 'format' });
        return add(m.matchesNone);
      }
      case 'oneOf': {
        const branches = Array.isArray(own('oneOf')) ? (own('oneOf') as unknown[]).length : 0;
        let failed = 0;
        for (let b = 0; b < branches; b++) if (units.some((x) => x.keywordLocation.startsWith(`${u.keywordLocation}/${b}/`))) failed++;
        return add(failed === branches ? m.matchesNone : m.matchesMany);
      }
      case 'contains':
        return add(m.containsNone);
      case 'propertyNames': {
        // The name is where the names' own errors are (the next ones under this keyword).
        const tried = units.slice(i + 1).find((x) => x.keywordLocation.startsWith(`${u.keywordLocation}/`));
        return add(m.badFieldName(show(tried ? lastToken(tried.instanceLocation) : '')));
      }
      case 'not': {
        const s = owner();
        if (!isObject(s) || !p.falses.has(s)) return add(m.notAllowed);
        const where = lastToken(parentOf(u.keywordLocation));
        // `additionalProperties: false` and the like: the field is unknown, said at the object.
        if (where === 'additionalProperties' || where === 'unevaluatedProperties') {
          return out.push({ path: base + pointerOf(parentOf(u.instanceLocation)), message: m.unknownField(show(lastToken(u.instanceLocation))), keyword: where });
        }
        return out.push({ path: at, message: m.noValueAllowed, keyword: 'false' });
      }
      case 'false':
        return add(m.noValueAllowed);
      // Wrappers: "a sub-schema failed", its own errors follow.
      case 'properties':
      case 'patternProperties':
      case 'additionalProperties':
      case 'unevaluatedProperties':
      case 'items':
      case 'prefixItems':
      case 'additionalItems':
      case 'unevaluatedItems':
      case 'allOf':
      case 'if':
      case 'dependentSchemas':
      case '$ref':
      case '$recursiveRef':
        return;
      default:
        return add(m.failsCheck(u.keyword));
    }
  });
  return out;
}

/** Missing fields: `required` (at each field), `dependentRequired` and `dependencies` (naming the field that needs them). */
function missing(u: OutputUnit, schema: unknown, obj: unknown, at: string, m: Messages['resume']): PathError[] {
  if (!isObject(schema) || !isObject(obj)) return [];
  const field = (name: string, message: string) => ({ path: `${at}/${pointerToken(name)}`, message, keyword: u.keyword });
  if (u.keyword === 'required') {
    const names = Array.isArray(schema.required) ? schema.required : [];
    return names.filter((n): n is string => typeof n === 'string' && !hasOwn(obj, n)).map((n) => field(n, m.requiredField));
  }
  const deps = schema[u.keyword];
  if (!isObject(deps)) return [];
  const out: PathError[] = [];
  for (const key of Object.keys(deps)) {
    const needs = deps[key];
    if (!hasOwn(obj, key) || !Array.isArray(needs)) continue;
    for (const n of needs) if (typeof n === 'string' && !hasOwn(obj, n)) out.push(field(n, m.requiredWith(show(key))));
  }
  return out;
}

function mustBeType(m: Messages['resume'], type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  const names = types.filter((t): t is string => typeof t === 'string').map((t) => (Object.hasOwn(m.types, t) ? m.types[t as keyof Messages['resume']['types']] : t));
  return m.mustBeType(names.length > 1 ? m.or(names.slice(0, -1).join(m.listSeparator), names[names.length - 1]) : (names[0] ?? m.otherType));
}

function formatMessage(m: Messages['resume'], format: string): string {
  return Object.hasOwn(m.formats, format) ? m.formats[format as keyof Messages['resume']['formats']] : m.failsCheck('format');
}

/** The schema at a keyword location of the library (`#/properties/a/$ref/type`), following `$ref`s as it did. */
function resolve(p: Prepared, location: string): unknown {
  let node: unknown = p.schema;
  for (const token of tokens(location)) {
    if (isObject(node) && token === '$ref' && typeof node.$ref === 'string') {
      const abs = (node as { __absolute_ref__?: string }).__absolute_ref__ ?? node.$ref;
      node = p.lookup[abs];
    } else if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** The value at an instance location of the library (`#/a/0`). */
function valueAt(value: unknown, location: string): unknown {
  let node = value;
  for (const token of tokens(location)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** A location of the library (a URI fragment: `#`, then a JSON pointer percent-encoded) as a JSON pointer. */
function pointerOf(location: string): string {
  const rest = location.replace(/^#/, '');
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

/** The tokens of a location, unescaped (`~1` is `/`, `~0` is `~`). */
function tokens(location: string): string[] {
  const pointer = pointerOf(location);
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(location: string): string {
  return location.slice(0, Math.max(location.lastIndexOf('/'), 1));
}

function lastToken(location: string): string {
  const t = tokens(location);
  return t[t.length - 1] ?? '';
}

/** A value as it appears in a message: strings quoted, everything as JSON. */
function show(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? s.slice(0, 57) + '…' : s;
}

function dedupe(errors: PathError[]): PathError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const k = `${e.path}\u0000${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
