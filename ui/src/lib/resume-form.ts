/**
 * The answer form of a suspend() call, from its `resumeSchema`: the schema becomes a tree of form
 * nodes (objects, lists, text, numbers, yes/no, choices of values, choices of shapes, fixed
 * values), the operator's input is held as a draft of the same shape, and the draft becomes the
 * resume data, checked like the server checks it (`json-schema.ts`), errors by JSON pointer.
 *
 * A schema the form cannot show faithfully (a `$ref`, `allOf`, `if`, tuples, "any value", an object
 * without listed properties, deeper than `MAX_FORM_DEPTH`, more than `MAX_FORM_NODES` inputs…)
 * gets the raw JSON editor instead, so an operator can always answer; so does an operator who
 * asks for it. Switching between the two keeps the data, or says why it cannot.
 *
 * Titles, descriptions, property names and enum values are untrusted engine data: they are only
 * ever put on the page as text.
 *
 * The words this module makes (hints, names of shapes, why the raw editor is shown, errors) are in
 * the console's language when it runs (`i18n` `resume`): the same schema built again in another
 * language gives the same form, in other words.
 */
import { checkJson, hasOwn, isObject, jsonEqual, pointerToken, type PathError } from './json-schema';
import { escapeHidden, HIDDEN_CHARS } from './json-text';
import { markedParts } from './confusables';
import { i18n, type Messages } from './i18n/index.svelte';

export type { PathError } from './json-schema';

/** Objects, lists and choices nested deeper than this get the raw editor. */
export const MAX_FORM_DEPTH = 8;
/** More form nodes than this (fields, list items' shapes, choices' shapes) get the raw editor. */
export const MAX_FORM_NODES = 300;
/** More enum values than this get the raw editor (a select that long is no help). */
export const MAX_ENUM_OPTIONS = 500;
/** Up to this many values, an enum or a choice of shapes is a row of radio buttons; more, a select. */
export const RADIO_MAX = 3;

type Common = {
  /** Title, else description, else the property name. Untrusted text. */
  label: string;
  /** The description, when the title is the label. Untrusted text. */
  description: string | null;
  /** What the schema asks of the value, in words ("3 to 20 characters"). Untrusted text inside. */
  hints: string[];
  /** The parent object lists this property in `required`. */
  required: boolean;
  /** `null` is allowed as well (`"type": [T, "null"]`, or `{"type": "null"}` among `anyOf`/`oneOf`). */
  nullable: boolean;
  /**
   * The node stands for one branch of an `anyOf`/`oneOf` (a choice's shape, or the non-null side of
   * a nullable): the server then only says "matches none", so its own errors are worked out here.
   */
  branch: boolean;
  /** The sub-schema this node was built from (for a branch: the branch alone). */
  schema: Record<string, unknown>;
  /** `default` of the schema, if any (undefined when none). */
  default: unknown;
};

export type TextNode = Common & {
  kind: 'text';
  format: string | null;
  /** The input type matching the format. `date-time` and `time` stay text: the browser's own inputs drop the zone. */
  input: 'text' | 'date' | 'email' | 'url';
  placeholder: string | null;
};
export type NumberNode = Common & { kind: 'number'; integer: boolean; min: number | null; max: number | null; step: string };
export type BooleanNode = Common & { kind: 'boolean' };
export type EnumNode = Common & { kind: 'enum'; options: unknown[]; widget: 'radio' | 'select' };
export type ConstNode = Common & { kind: 'const'; value: unknown };
export type ObjectNode = Common & { kind: 'object'; fields: { name: string; node: FormNode }[] };
export type ArrayNode = Common & { kind: 'array'; items: FormNode; minItems: number; maxItems: number | null };
export type ChoiceNode = Common & { kind: 'choice'; variants: { label: string; node: FormNode }[]; widget: 'radio' | 'select' };
export type FormNode = TextNode | NumberNode | BooleanNode | EnumNode | ConstNode | ObjectNode | ArrayNode | ChoiceNode;

/**
 * What the operator has entered, one draft per node. Plain data (Svelte makes it deeply reactive).
 * `isNull` is the "null" box of a nullable node.
 */
export type TextDraft = { kind: 'text'; isNull: boolean; text: string };
/** `value`: the number typed, null when empty. `badInput`: the browser holds text it cannot read as a number. */
export type NumberDraft = { kind: 'number'; isNull: boolean; value: number | null; badInput: boolean };
/** `value`: null while an optional box was never set (then nothing is sent). */
export type BooleanDraft = { kind: 'boolean'; isNull: boolean; value: boolean | null };
/** `index`: the chosen option's index as text, '' for none. */
export type EnumDraft = { kind: 'enum'; isNull: boolean; index: string };
export type ConstDraft = { kind: 'const'; isNull: boolean };
/** `fields` in the node's order. `present`: the object was in the data loaded, so it is sent even if empty. */
export type ObjectDraft = { kind: 'object'; isNull: boolean; present: boolean; fields: Draft[] };
/** `key`: stable per item, for the list's rendering. */
export type ArrayDraft = { kind: 'array'; isNull: boolean; present: boolean; items: { key: number; draft: Draft }[] };
/** `index`: the chosen shape ('' for none); each shape keeps its own draft while another is chosen. */
export type ChoiceDraft = { kind: 'choice'; isNull: boolean; index: string; variants: Draft[] };
export type Draft = TextDraft | NumberDraft | BooleanDraft | EnumDraft | ConstDraft | ObjectDraft | ArrayDraft | ChoiceDraft;

export type ResumeFormModel =
  | { mode: 'form'; schema: Record<string, unknown>; root: ObjectNode; initial: ObjectDraft }
  | { mode: 'raw'; schema: unknown; reason: string; initial: string };

/** Keywords that only describe: allowed next to `anyOf`/`oneOf` (anything else there is not a "simple" choice). */
const ANNOTATIONS = new Set([
  '$schema', '$id', 'id', '$comment', '$anchor', '$defs', 'definitions', 'title', 'description', 'default', 'examples',
  'readOnly', 'writeOnly', 'deprecated',
]);

/** Keywords that change which shapes are allowed in ways the form cannot follow. */
const UNREPRESENTABLE = [
  '$ref', '$dynamicRef', '$recursiveRef', 'allOf', 'if', 'then', 'else', 'dependentSchemas', 'dependencies',
  'prefixItems', 'additionalItems', 'patternProperties', 'unevaluatedProperties', 'unevaluatedItems',
];

class Unrepresentable extends Error {}

/** `resumeSchema` is untrusted engine data of any JSON type; anything the form can't show gets the raw editor. */
export function buildResumeForm(input: unknown): ResumeFormModel {
  const m = i18n.m.resume;
  const raw = (reason: string): ResumeFormModel => ({ mode: 'raw', schema: input, reason, initial: rawInitial(input) });
  if (!isObject(input)) return raw(m.noSchema);
  const type = input.type;
  if (!(type === 'object' || (type === undefined && isObject(input.properties)))) return raw(m.notObjectSchema);
  if (!isObject(input.properties) || Object.keys(input.properties).length === 0) return raw(m.noProperties);
  try {
    const root = build(input, '', { required: true, depth: 0, budget: { nodes: 0 }, where: m.whereRoot });
    if (root.kind !== 'object') return raw(m.notObjectSchema);
    return { mode: 'form', schema: input, root, initial: initialDraft(root) as ObjectDraft };
  } catch (e) {
    if (e instanceof Unrepresentable) return raw(e.message);
    throw e;
  }
}

type BuildCtx = { required: boolean; depth: number; budget: { nodes: number }; where: string };

function build(schema: unknown, name: string, ctx: BuildCtx): FormNode {
  const m = i18n.m.resume;
  if (++ctx.budget.nodes > MAX_FORM_NODES) throw new Unrepresentable(m.tooManyFields(MAX_FORM_NODES));
  if (ctx.depth > MAX_FORM_DEPTH) throw new Unrepresentable(m.tooDeep(MAX_FORM_DEPTH));
  if (!isObject(schema)) throw new Unrepresentable(m.acceptsAnything(ctx.where));
  for (const k of UNREPRESENTABLE) {
    if (k in schema) throw new Unrepresentable(m.usesKeyword(ctx.where, k));
  }
  const title = typeof schema.title === 'string' && schema.title ? schema.title : null;
  const desc = typeof schema.description === 'string' && schema.description ? schema.description : null;
  const common: Common = {
    label: title ?? desc ?? name,
    description: title ? desc : null,
    hints: [],
    required: ctx.required,
    nullable: false,
    branch: false,
    schema,
    default: schema.default,
  };
  const child = (s: unknown, childName: string, required: boolean, where: string) =>
    build(s, childName, { ...ctx, required, depth: ctx.depth + 1, where });

  if ('const' in schema) return { ...common, kind: 'const', value: schema.const };
  if (Array.isArray(schema.enum)) {
    if (schema.enum.length === 0) throw new Unrepresentable(m.allowsNothing(ctx.where));
    if (schema.enum.length > MAX_ENUM_OPTIONS) throw new Unrepresentable(m.tooManyValues(ctx.where, MAX_ENUM_OPTIONS));
    return { ...common, kind: 'enum', options: schema.enum, widget: schema.enum.length <= RADIO_MAX ? 'radio' : 'select' };
  }

  const combinator = 'anyOf' in schema ? 'anyOf' : 'oneOf' in schema ? 'oneOf' : null;
  if (combinator) {
    const branches = schema[combinator];
    if ('anyOf' in schema && 'oneOf' in schema) throw new Unrepresentable(m.bothCombinators(ctx.where));
    if (!Array.isArray(branches) || branches.length === 0) throw new Unrepresentable(m.emptyCombinator(ctx.where, combinator));
    const other = Object.keys(schema).find((k) => k !== combinator && !ANNOTATIONS.has(k));
    if (other) throw new Unrepresentable(m.combinatorWith(ctx.where, combinator, other));
    const nonNull = branches.filter((b) => !isNullSchema(b));
    const nullable = nonNull.length < branches.length;
    if (nonNull.length === 0) return { ...common, kind: 'const', value: null };
    if (nonNull.length === 1) {
      // `X or null`: the field of X with a null box; the title and description of the whole win.
      const inner = build(nonNull[0], name, ctx);
      return {
        ...inner,
        label: title ?? desc ?? inner.label,
        description: title ? desc : desc ? null : inner.description,
        nullable: true,
        branch: true,
        default: 'default' in schema ? schema.default : inner.default,
      };
    }
    const variants = nonNull.map((b, i) => ({ node: { ...child(b, '', true, m.whereShape(ctx.where, i + 1)), branch: true }, label: '' }));
    labelVariants(variants);
    return { ...common, kind: 'choice', variants, nullable, widget: variants.length <= RADIO_MAX ? 'radio' : 'select' };
  }

  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (!types.every((t) => typeof t === 'string')) throw new Unrepresentable(m.typeNotName(ctx.where));
  const nonNull = (types as string[]).filter((t) => t !== 'null');
  const nullable = nonNull.length < types.length;
  if (types.length > 0 && nonNull.length === 0) return { ...common, kind: 'const', value: null };
  if (nonNull.length > 1) {
    // Several types: a choice of one shape per type, each with the keywords that apply to it.
    const { title: _t, description: _d, default: _def, ...rest } = schema;
    const variants = nonNull.map((t) => ({ node: { ...child({ ...rest, type: t }, '', true, ctx.where), branch: true }, label: '' }));
    labelVariants(variants);
    return { ...common, kind: 'choice', variants, nullable, widget: variants.length <= RADIO_MAX ? 'radio' : 'select' };
  }
  const t = nonNull[0] ?? (isObject(schema.properties) ? 'object' : 'items' in schema ? 'array' : undefined);
  const base = { ...common, nullable };
  switch (t) {
    case 'string': {
      const format = typeof schema.format === 'string' ? schema.format : null;
      const hints: string[] = [];
      const minL = num(schema.minLength);
      const maxL = num(schema.maxLength);
      if (minL !== null && maxL !== null) hints.push(m.lengthRange(minL, maxL));
      else if (minL !== null && minL > 0) hints.push(m.minChars(minL));
      else if (maxL !== null) hints.push(m.maxChars(maxL));
      if (typeof schema.pattern === 'string') hints.push(m.matching(schema.pattern));
      const f = format && Object.hasOwn(FORMAT_INPUTS, format) ? FORMAT_INPUTS[format] : undefined;
      if (format) hints.push(f ? m.formatHints[f.hint] : m.format(format));
      return { ...base, kind: 'text', format, input: f?.input ?? 'text', placeholder: f?.placeholder ?? null, hints };
    }
    case 'number':
    case 'integer': {
      const integer = t === 'integer';
      const min = num(schema.minimum) ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : null);
      const max = num(schema.maximum) ?? (typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : null);
      const multipleOf = num(schema.multipleOf);
      const hints: string[] = [];
      if (integer) hints.push(m.wholeNumber);
      const minimum = num(schema.minimum);
      const maximum = num(schema.maximum);
      const lo = minimum !== null ? m.atLeastHint(minimum) : min !== null ? m.moreThanHint(min) : null;
      const hi = maximum !== null ? m.atMostHint(maximum) : max !== null ? m.lessThanHint(max) : null;
      // Draft 4 spells "exclusive" as a boolean next to minimum/maximum; the check handles it, the hint stays simple.
      if (lo && hi) hints.push(m.between(lo, hi));
      else if (lo ?? hi) hints.push((lo ?? hi)!);
      if (multipleOf !== null) hints.push(m.multipleOfHint(multipleOf));
      return { ...base, kind: 'number', integer, min, max, step: multipleOf !== null ? String(multipleOf) : integer ? '1' : 'any', hints };
    }
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'object': {
      if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0) {
        throw new Unrepresentable(m.objectWithoutProperties(ctx.where));
      }
      const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
      for (const r of required) {
        if (!hasOwn(schema.properties, r)) throw new Unrepresentable(m.requiredNotDescribed(r));
      }
      const fields = Object.keys(schema.properties).map((n) => ({
        name: n,
        node: child((schema.properties as Record<string, unknown>)[n], n, required.has(n), m.whereField(n)),
      }));
      return { ...base, kind: 'object', fields };
    }
    case 'array': {
      if (!isObject(schema.items)) {
        throw new Unrepresentable(Array.isArray(schema.items) ? m.fixedPositions(ctx.where) : m.listOfAnything(ctx.where));
      }
      const minItems = num(schema.minItems) ?? 0;
      const maxItems = num(schema.maxItems);
      const items = child(schema.items, '', true, m.whereItems(ctx.where));
      const hints: string[] = [];
      if (minItems > 0 && maxItems !== null) hints.push(m.itemsRange(minItems, maxItems));
      else if (minItems > 0) hints.push(m.minItemsHint(minItems));
      else if (maxItems !== null) hints.push(m.maxItemsHint(maxItems));
      if (schema.uniqueItems === true) hints.push(m.allDifferent);
      return { ...base, kind: 'array', items, minItems, maxItems, hints };
    }
    default:
      throw new Unrepresentable(t ? m.typeNotShown(ctx.where, t) : m.anythingNotShown(ctx.where));
  }
}

/** Formats with an input of their own; `hint` names the words (`i18n` `resume.formatHints`). */
const FORMAT_INPUTS: Record<string, { input: TextNode['input']; placeholder: string | null; hint: keyof Messages['resume']['formatHints'] }> = {
  date: { input: 'date', placeholder: 'YYYY-MM-DD', hint: 'date' },
  'date-time': { input: 'text', placeholder: '2025-01-31T09:30:00Z', hint: 'date-time' },
  time: { input: 'text', placeholder: '09:30:00Z', hint: 'time' },
  email: { input: 'email', placeholder: null, hint: 'email' },
  'idn-email': { input: 'email', placeholder: null, hint: 'email' },
  uri: { input: 'url', placeholder: 'https://', hint: 'uri' },
  iri: { input: 'url', placeholder: 'https://', hint: 'iri' },
};

/** `{"type": "null"}`, `{"const": null}` or `{"enum": [null]}`, with annotations at most. */
function isNullSchema(s: unknown): boolean {
  if (!isObject(s)) return false;
  const keys = Object.keys(s).filter((k) => !ANNOTATIONS.has(k));
  if (keys.length !== 1) return false;
  return s.type === 'null' || ('const' in s && s.const === null) || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null);
}

/** Names the shapes of a choice: their title, else what tells them apart (a fixed field value, the type). */
function labelVariants(variants: { label: string; node: FormNode }[]): void {
  const m = i18n.m.resume;
  variants.forEach((v, i) => {
    const n = v.node;
    const title = typeof n.schema.title === 'string' && n.schema.title ? n.schema.title : null;
    let label = title;
    if (!label && n.kind === 'const') label = display(n.value);
    if (!label && n.kind === 'object') {
      const tag = n.fields.find((f) => f.node.kind === 'const');
      if (tag && tag.node.kind === 'const') label = display(tag.node.value);
    }
    if (!label && n.kind === 'enum') label = n.options.slice(0, 3).map(display).join(' / ') + (n.options.length > 3 ? ' / …' : '');
    if (!label) label = (Object.hasOwn(m.shapeKinds, n.kind) ? m.shapeKinds[n.kind as keyof typeof m.shapeKinds] : null) ?? m.shape(i + 1);
    if (n.kind === 'number' && n.integer && !title) label = m.wholeNumberShape;
    v.label = label;
  });
  // Same name twice: number them so the operator can tell them apart.
  const seen = new Map<string, number>();
  for (const v of variants) seen.set(v.label, (seen.get(v.label) ?? 0) + 1);
  const counters = new Map<string, number>();
  for (const v of variants) {
    if (seen.get(v.label)! > 1) {
      const k = (counters.get(v.label) ?? 0) + 1;
      counters.set(v.label, k);
      v.label = `${v.label} (${k})`;
    }
  }
}

/** A JSON value as the operator reads it: strings as they are, the rest as JSON. */
export function display(v: unknown): string {
  if (typeof v === 'string') return v;
  return safeStringify(v) ?? String(v);
}

// ---------------------------------------------------------------------------------------------
// Drafts: from defaults, from data (the raw editor), and back to data.

let nextKey = 1;

/** The draft a new form starts with: the schema's defaults, where they fit; a required list starts with `minItems` items. */
export function initialDraft(node: FormNode): Draft {
  return load(node, undefined, '', null);
}

/** A new item for a list (its defaults filled in). */
export function newItem(node: ArrayNode): { key: number; draft: Draft } {
  return { key: nextKey++, draft: initialDraft(node.items) };
}

export type LoadResult = { ok: true; draft: ObjectDraft } | { ok: false; problems: PathError[] };

/**
 * Data from the raw editor as a draft, for going back to the form. Refused (with where and why) when
 * the form could not show all of it: a value of another type, an unknown field, a value matching no
 * shape. Absent fields stay empty (defaults are not filled in again).
 */
export function loadData(root: ObjectNode, data: unknown): LoadResult {
  const problems: PathError[] = [];
  const draft = load(root, data, '', problems) as ObjectDraft;
  return problems.length ? { ok: false, problems } : { ok: true, draft };
}

/**
 * `strict` (a problems list): `value` is data to show, undefined meaning absent. Otherwise (null):
 * `value` is undefined and the node's default is used where it fits.
 */
function load(node: FormNode, value: unknown, path: string, problems: PathError[] | null, ownDefault = true): Draft {
  const strict = problems !== null;
  if (!strict && ownDefault && value === undefined) value = node.default;
  // A value that does not fit: in strict mode a problem; either way an empty draft (a default that does not fit is ignored).
  const m = i18n.m.resume;
  const bad = (what: string): Draft => {
    if (strict) problems.push({ path, message: m.cannotShowValue(what) });
    return load(node, undefined, path, strict ? [] : null, false);
  };
  if (value === null && node.nullable) return { ...load(node, undefined, path, strict ? [] : null, false), isNull: true };
  switch (node.kind) {
    case 'text':
      if (value === undefined) return { kind: 'text', isNull: false, text: '' };
      return typeof value === 'string' ? { kind: 'text', isNull: false, text: value } : bad(m.notText);
    case 'number':
      if (value === undefined) return { kind: 'number', isNull: false, value: null, badInput: false };
      return typeof value === 'number' ? { kind: 'number', isNull: false, value, badInput: false } : bad(m.notNumber);
    case 'boolean':
      // A required box starts unticked (false is sent); an optional one is not sent until it is used.
      if (value === undefined) return { kind: 'boolean', isNull: false, value: !strict && node.required ? false : null };
      return typeof value === 'boolean' ? { kind: 'boolean', isNull: false, value } : bad(m.notBoolean);
    case 'enum': {
      if (value === undefined) return { kind: 'enum', isNull: false, index: '' };
      const i = node.options.findIndex((o) => jsonEqual(o, value));
      return i === -1 ? bad(m.notOffered) : { kind: 'enum', isNull: false, index: String(i) };
    }
    case 'const':
      if (value !== undefined && !jsonEqual(value, node.value)) return bad(m.notConst(display(node.value)));
      return { kind: 'const', isNull: false };
    case 'object': {
      if (value !== undefined && !isObject(value)) return bad(m.notObject);
      const obj = value as Record<string, unknown> | undefined;
      if (obj && strict) {
        for (const k of Object.keys(obj)) {
          if (!node.fields.some((f) => f.name === k)) problems.push({ path: `${path}/${pointerToken(k)}`, message: m.noFieldForThis });
        }
      }
      const fields = node.fields.map((f) =>
        load(f.node, obj && hasOwn(obj, f.name) ? obj[f.name] : undefined, `${path}/${pointerToken(f.name)}`, problems),
      );
      return { kind: 'object', isNull: false, present: obj !== undefined, fields };
    }
    case 'array': {
      if (value !== undefined && !Array.isArray(value)) return bad(m.notList);
      if (value === undefined) {
        const n = !strict && node.required ? node.minItems : 0;
        return { kind: 'array', isNull: false, present: false, items: Array.from({ length: n }, () => newItem(node)) };
      }
      const items = (value as unknown[]).map((v, i) => ({ key: nextKey++, draft: load(node.items, v, `${path}/${i}`, problems) }));
      return { kind: 'array', isNull: false, present: true, items };
    }
    case 'choice': {
      const empty = node.variants.map((v) => load(v.node, undefined, path, strict ? [] : null));
      if (value === undefined) return { kind: 'choice', isNull: false, index: !strict && node.required ? '0' : '', variants: empty };
      // The first shape that takes the value and that it is valid under; else the first that takes it.
      let fallback = -1;
      for (let i = 0; i < node.variants.length; i++) {
        const p: PathError[] = [];
        const d = load(node.variants[i].node, value, path, p);
        if (p.length) continue;
        if (fallback === -1) fallback = i;
        if (checkJson(node.variants[i].node.schema, value).errors.length === 0) {
          empty[i] = d;
          return { kind: 'choice', isNull: false, index: String(i), variants: empty };
        }
      }
      if (fallback === -1) return bad(m.noShape);
      empty[fallback] = load(node.variants[fallback].node, value, path, []);
      return { kind: 'choice', isNull: false, index: String(fallback), variants: empty };
    }
  }
}

/**
 * The data a draft stands for; undefined when nothing is to be sent for it. Values that can't be
 * read (a number the browser could not parse, an unchosen item value) are reported in `errors`.
 * `mustExist`: the value has a place that can't be left empty (a list item).
 */
function toData(node: FormNode, draft: Draft, path: string, mustExist: boolean, errors: PathError[]): unknown {
  if (draft.isNull && node.nullable) return null;
  switch (node.kind) {
    case 'text': {
      const d = draft as TextDraft;
      // An empty input means "not given", except where a value must be (then it is the empty string).
      return d.text === '' && !mustExist ? undefined : d.text;
    }
    case 'number': {
      const d = draft as NumberDraft;
      if (d.badInput || (d.value !== null && !Number.isFinite(d.value))) {
        errors.push({ path, message: i18n.m.resume.enterNumber });
        return undefined;
      }
      if (d.value === null) {
        if (mustExist) errors.push({ path, message: i18n.m.resume.enterNumber });
        return undefined;
      }
      return d.value;
    }
    case 'boolean': {
      const d = draft as BooleanDraft;
      return d.value === null ? (mustExist ? false : undefined) : d.value;
    }
    case 'enum': {
      const d = draft as EnumDraft;
      const i = d.index === '' ? -1 : Number(d.index);
      if (!Number.isInteger(i) || i < 0 || i >= node.options.length) {
        if (mustExist) errors.push({ path, message: i18n.m.resume.chooseValue });
        return undefined;
      }
      return node.options[i];
    }
    case 'const':
      return node.value;
    case 'object': {
      const d = draft as ObjectDraft;
      const obj: Record<string, unknown> = {};
      let filled = false;
      node.fields.forEach((f, i) => {
        const v = toData(f.node, d.fields[i], `${path}/${pointerToken(f.name)}`, false, errors);
        // defineProperty: a field named `__proto__` is data, not the object's prototype.
        if (v !== undefined) Object.defineProperty(obj, f.name, { value: v, enumerable: true, writable: true, configurable: true });
        if (v !== undefined && f.node.kind !== 'const') filled = true;
      });
      // An optional object nobody filled in (fixed values aside) is left out: its own required fields would only be noise.
      if (!filled && !d.present && !node.required && !mustExist) return undefined;
      return obj;
    }
    case 'array': {
      const d = draft as ArrayDraft;
      if (d.items.length === 0 && !d.present && !node.required && !mustExist) return undefined;
      return d.items.map((it, i) => toData(node.items, it.draft, `${path}/${i}`, true, errors) ?? null);
    }
    case 'choice': {
      const d = draft as ChoiceDraft;
      const i = d.index === '' ? -1 : Number(d.index);
      if (!Number.isInteger(i) || i < 0 || i >= node.variants.length) {
        if (mustExist) errors.push({ path, message: i18n.m.resume.chooseOne });
        return undefined;
      }
      return toData(node.variants[i].node, d.variants[i], path, mustExist, errors);
    }
  }
}

export type FormCheck = { ok: true; data: Record<string, unknown> } | { ok: false; data: Record<string, unknown>; errors: PathError[] };

/**
 * The resume data of the form, checked like the server checks it. Where the server would only say
 * that a value "matches none" of an `anyOf`/`oneOf`, the errors of the shape the operator chose are
 * given instead, at their own paths.
 */
export function checkForm(model: Extract<ResumeFormModel, { mode: 'form' }>, draft: ObjectDraft): FormCheck {
  const conversion: PathError[] = [];
  const data = (toData(model.root, draft, '', true, conversion) ?? {}) as Record<string, unknown>;
  let errors = checkJson(model.schema, data).errors;
  errors = refineBranches(model, model.root, draft, data, '', errors);
  // A value that could not be read is reported once, not also as "required" or of the wrong type.
  const unreadable = new Set(conversion.map((e) => e.path));
  const all = dedupe([...conversion, ...errors.filter((e) => !unreadable.has(e.path))]);
  return all.length ? { ok: false, data, errors: all } : { ok: true, data };
}

function refineBranches(
  model: Extract<ResumeFormModel, { mode: 'form' }>,
  node: FormNode,
  draft: Draft,
  value: unknown,
  path: string,
  errors: PathError[],
): PathError[] {
  if (value === undefined || (value === null && node.nullable && draft.isNull)) return errors;
  const none = i18n.m.resume.matchesNone;
  if (node.branch && errors.some((e) => e.path === path && (e.keyword === 'anyOf' || e.keyword === 'oneOf') && e.message === none)) {
    const own = checkJson(node.schema, value, { rootSchema: model.schema, path }).errors;
    if (own.length) errors = [...errors.filter((e) => !(e.path === path && (e.keyword === 'anyOf' || e.keyword === 'oneOf'))), ...own];
  }
  switch (node.kind) {
    case 'object': {
      const d = draft as ObjectDraft;
      if (!isObject(value)) return errors;
      node.fields.forEach((f, i) => {
        if (hasOwn(value, f.name)) errors = refineBranches(model, f.node, d.fields[i], value[f.name], `${path}/${pointerToken(f.name)}`, errors);
      });
      return errors;
    }
    case 'array': {
      const d = draft as ArrayDraft;
      if (!Array.isArray(value)) return errors;
      d.items.forEach((it, i) => (errors = refineBranches(model, node.items, it.draft, value[i], `${path}/${i}`, errors)));
      return errors;
    }
    case 'choice': {
      const d = draft as ChoiceDraft;
      const i = Number(d.index);
      if (d.index === '' || !node.variants[i]) return errors;
      return refineBranches(model, node.variants[i].node, d.variants[i], value, path, errors);
    }
    default:
      return errors;
  }
}

export type RawCheck = { ok: true; data: unknown } | { ok: false; errors: PathError[] };

/** The raw editor's text, parsed and checked against the schema the same way as the form. */
export function checkRaw(schema: unknown, text: string): RawCheck {
  const parsed = parseRawResumeData(text);
  if (!parsed.ok) return { ok: false, errors: [{ path: '', message: parsed.error }] };
  const errors = isObject(schema) ? checkJson(schema, parsed.data).errors : [];
  return errors.length ? { ok: false, errors } : { ok: true, data: parsed.data };
}

export type ParseResult = { ok: true; data: unknown } | { ok: false; error: string };

/** Parses the raw JSON textarea. */
export function parseRawResumeData(text: string): ParseResult {
  if (!text.trim()) return { ok: false, error: i18n.m.resume.enterJson };
  try {
    return { ok: true, data: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: i18n.m.resume.notValidJson(e instanceof Error ? e.message : String(e)) };
  }
}

/** The form's data as the raw editor's text; `left out`: the paths of values that could not be read. */
export function draftToRaw(root: ObjectNode, draft: ObjectDraft): { text: string; leftOut: string[] } {
  const errors: PathError[] = [];
  const data = toData(root, draft, '', true, errors) ?? {};
  return { text: safeStringify(data, 2) ?? '{}', leftOut: errors.map((e) => e.path) };
}

/** How a form field finds its element ids and its errors (from the form around it). */
export type FieldContext = {
  /** A unique element id for the field at `path` (`part` for its secondary elements). */
  idFor(path: string, part?: string): string;
  /** The messages to show next to the field at `path`. */
  errorsAt(path: string): string[];
};

const HIDDEN_GLOBAL = new RegExp(HIDDEN_CHARS.source, 'gu');

/**
 * A value as the text of an `<option>` (which can hold no markup): hidden characters written as
 * `\u{…}` escapes so they cannot reorder or hide what the operator reads, and look-alikes named
 * after the text (` ⚠ look-alike U+0430`), since an option cannot highlight them.
 */
export function optionText(v: unknown): string {
  const text = display(v);
  const escaped = text.replace(HIDDEN_GLOBAL, (c) => escapeHidden(c.codePointAt(0)!));
  const codes = lookalikesIn(text);
  return codes.length ? `${escaped} ${i18n.m.args.lookalikeMark(codes.join(' '))}` : escaped;
}

/** The look-alike characters of `s`, each once, as `U+0430`. */
export function lookalikesIn(s: string): string[] {
  const codes = new Set<string>();
  for (const part of markedParts(s)) {
    if (part.kind === 'lookalike') codes.add('U+' + part.text.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0'));
  }
  return [...codes];
}

/**
 * The paths that have a place for errors in the form as it is now: every node but the root (its
 * errors are listed apart), list items included.
 */
export function fieldPaths(root: ObjectNode, draft: ObjectDraft): Set<string> {
  const paths = new Set<string>();
  const walk = (node: FormNode, d: Draft, path: string) => {
    if (path !== '') paths.add(path);
    if (d.isNull && node.nullable) return;
    if (node.kind === 'object') node.fields.forEach((f, i) => walk(f.node, (d as ObjectDraft).fields[i], `${path}/${pointerToken(f.name)}`));
    else if (node.kind === 'array') (d as ArrayDraft).items.forEach((it, i) => walk(node.items, it.draft, `${path}/${i}`));
    else if (node.kind === 'choice') {
      const c = d as ChoiceDraft;
      const v = node.variants[Number(c.index)];
      if (c.index !== '' && v) walk(v.node, c.variants[Number(c.index)], path);
    }
  };
  walk(root, draft, '');
  return paths;
}

/**
 * Puts each error at the nearest field at or above its path (`/a/0/b` goes to `/a/0/b`, else
 * `/a/0`, else `/a`), prefixed with the rest of its path when it lands above; errors with no field
 * (the whole object, or a field the form doesn't have) go to `other`.
 */
export function placeErrors(paths: Set<string>, errors: PathError[]): { byPath: Record<string, string[]>; other: PathError[] } {
  const byPath: Record<string, string[]> = {};
  const other: PathError[] = [];
  for (const e of errors) {
    let p = e.path;
    while (p !== '' && !paths.has(p)) p = p.slice(0, Math.max(0, p.lastIndexOf('/')));
    if (p === '' || !paths.has(p)) {
      other.push(e);
      continue;
    }
    const rest = e.path.slice(p.length);
    (byPath[p] ??= []).push(rest ? `${rest.slice(1)}: ${e.message}` : e.message);
  }
  return { byPath, other };
}

/** Reads `details.errors` of an `invalid_resume_data` error defensively. */
export function serverErrors(details: unknown): PathError[] {
  if (!isObject(details)) return [];
  const errs = details.errors;
  if (!Array.isArray(errs)) return [];
  return errs.filter(isObject).map((e) => ({
    path: typeof e.path === 'string' ? e.path : '',
    message: typeof e.message === 'string' ? e.message : String(e.message ?? ''),
  }));
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

function rawInitial(schema: unknown): string {
  if (isObject(schema) && isObject(schema.default)) return safeStringify(schema.default, 2) ?? '{}';
  return '{}';
}

/** JSON.stringify, or undefined for a value it can't write (too deep for the stack). */
function safeStringify(v: unknown, indent?: number): string | undefined {
  try {
    return JSON.stringify(v, null, indent);
  } catch {
    return undefined;
  }
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

