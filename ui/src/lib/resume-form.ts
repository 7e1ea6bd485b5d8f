/**
 * The answer form of a suspend() call, from its `resumeSchema`: the schema becomes a tree of form
 * nodes (objects, lists, text, numbers, yes/no, choices of values, choices of shapes, fixed
 * values). What the operator enters is held as drafts of the same shape, which become the resume
 * data and are checked (`resume-data.ts`).
 *
 * A schema the form cannot show faithfully (a `$ref`, `allOf`, `if`, tuples, "any value", an object
 * without listed properties, deeper than `MAX_FORM_DEPTH`, more than `MAX_FORM_NODES` inputs…)
 * gets the raw JSON editor instead, so an operator can always answer; so does an operator who
 * asks for it. Switching between the two keeps the data, or says why it cannot.
 *
 * Titles, descriptions, property names and enum values are untrusted engine data: they are only
 * ever put on the page as text.
 *
 * The words this module makes (hints, names of shapes, why the raw editor is shown) are in the
 * console's language when it runs (`i18n` `resume`): the same schema built again in another
 * language gives the same form, in other words.
 */
import { hasOwn, isObject } from './json-value';
import { display, initialDraft, safeStringify, type ObjectDraft } from './resume-data';
import { i18n, type Messages } from './i18n/index.svelte';

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

function rawInitial(schema: unknown): string {
  if (isObject(schema) && isObject(schema.default)) return safeStringify(schema.default, 2) ?? '{}';
  return '{}';
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
