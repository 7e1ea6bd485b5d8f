/**
 * The operator's answer to a suspend() call, as the answer form holds it (`resume-form.ts` builds
 * the form's nodes from the schema): one draft per node (from the schema's defaults, or from data
 * the raw editor held), the resume data a draft stands for, and its checks like the server's
 * (`json-schema.ts`), errors by JSON pointer and placed at the nearest field; the raw editor's
 * text, parsed and checked the same way.
 *
 * The words this module makes (errors, why data cannot go back to the form) are in the console's
 * language when it runs (`i18n` `resume`).
 */
import { checkJson, type PathError } from './json-schema';
import { hasOwn, isObject, jsonEqual, pointerToken } from './json-value';
import { escapeHidden, HIDDEN_CHARS } from './json-text';
import { markedParts } from './confusables';
import { i18n } from './i18n/index.svelte';
import type { ArrayNode, FormNode, ObjectNode, ResumeFormModel } from './resume-form';

export type { PathError } from './json-schema';

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

/** JSON.stringify, or undefined for a value it can't write (too deep for the stack). */
export function safeStringify(v: unknown, indent?: number): string | undefined {
  try {
    return JSON.stringify(v, null, indent);
  } catch {
    return undefined;
  }
}
