/**
 * Turns a suspend() call's `resumeSchema` into a form model, and the filled form back into
 * resume data. Only flat objects of string / number / integer / boolean / enum properties get
 * fields; anything else (nested objects, arrays, combinators, no schema) falls back to a raw
 * JSON textarea, so an operator can always answer.
 */
import type { JsonSchema } from './backend/backend';

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

export type Field = {
  name: string;
  /** JSON pointer of the field in the resume data, as the server reports errors (`/answer`). */
  path: string;
  type: FieldType;
  label: string;
  description: string | null;
  required: boolean;
  /** For `enum`: the allowed values, in schema order. */
  options: unknown[];
};

/**
 * What the inputs hold: text for string fields, a number (or text, or null when empty) for
 * number fields, a boolean for checkboxes, an option index as text (or '') for selects.
 */
export type FieldValue = string | number | boolean | null | undefined;

export type ResumeFormModel =
  | { mode: 'fields'; fields: Field[]; initial: Record<string, FieldValue> }
  | { mode: 'raw'; reason: string; initial: string };

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** `resumeSchema` is untrusted engine data of any JSON type; anything but an object gets the raw form. */
export function buildResumeForm(input: unknown): ResumeFormModel {
  const schema = isPlainObject(input) ? (input as JsonSchema) : null;
  const raw = (reason: string): ResumeFormModel => ({ mode: 'raw', reason, initial: rawInitial(schema) });
  if (!schema) return raw('No resume schema was given.');
  const type = singleType(schema.type);
  if (type !== 'object' && !(type === null && isPlainObject(schema.properties))) {
    return raw('The resume schema is not an object with properties.');
  }
  if (!isPlainObject(schema.properties) || Object.keys(schema.properties).length === 0) {
    return raw('The resume schema has no properties.');
  }
  for (const combinator of ['anyOf', 'oneOf', 'allOf', 'not', 'if', '$ref', 'patternProperties', 'dependentSchemas']) {
    if (combinator in schema) return raw(`The resume schema uses "${combinator}", which the form cannot show.`);
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const fields: Field[] = [];
  const initial: Record<string, FieldValue> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    const field = toField(name, prop, required.has(name));
    if (!field) return raw(`The field "${name}" has a shape the form cannot show.`);
    fields.push(field);
    initial[name] = initialValue(field, prop.default);
  }
  // A required name with no property can't be filled in a field.
  for (const r of required) {
    if (!fields.some((f) => f.name === r)) return raw(`The required field "${r}" is not described by the schema.`);
  }
  return { mode: 'fields', fields, initial };
}

function toField(name: string, prop: unknown, required: boolean): Field | null {
  if (!isPlainObject(prop)) return null;
  const p = prop as JsonSchema;
  for (const k of ['anyOf', 'oneOf', 'allOf', '$ref', 'not', 'if', 'const']) if (k in p) return null;
  const base = {
    name,
    path: '/' + name.replace(/~/g, '~0').replace(/\//g, '~1'),
    label: typeof p.title === 'string' && p.title ? p.title : typeof p.description === 'string' && p.description ? p.description : name,
    description: typeof p.title === 'string' && p.title && typeof p.description === 'string' && p.description ? p.description : null,
    required,
  };
  if (Array.isArray(p.enum)) {
    if (p.enum.length === 0 || !p.enum.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) return null;
    return { ...base, type: 'enum', options: p.enum };
  }
  const t = singleType(p.type);
  if (!t || !PRIMITIVE_TYPES.has(t)) return null;
  return { ...base, type: t as FieldType, options: [] };
}

/** `"string"` → `"string"`; `["string","null"]` → `"string"`; anything else → null. */
function singleType(t: unknown): string | null {
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const nonNull = t.filter((x) => x !== 'null');
    if (nonNull.length === 1 && typeof nonNull[0] === 'string') return nonNull[0];
  }
  return null;
}

function initialValue(field: Field, def: unknown): FieldValue {
  switch (field.type) {
    case 'string':
      return typeof def === 'string' ? def : '';
    case 'number':
    case 'integer':
      return typeof def === 'number' && Number.isFinite(def) ? String(def) : '';
    case 'boolean':
      return typeof def === 'boolean' ? def : false;
    case 'enum': {
      if (def === undefined) return '';
      const i = field.options.findIndex((o) => o === def);
      return i === -1 ? '' : String(i);
    }
  }
}

function rawInitial(schema: JsonSchema | null): string {
  if (schema && isPlainObject(schema.default)) return JSON.stringify(schema.default, null, 2);
  return '{}';
}

export type CollectResult = { ok: true; data: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

/** Checks required fields and types on the client, and builds the resume data. Errors are keyed by field path. */
export function collectResumeData(fields: Field[], values: Record<string, FieldValue>): CollectResult {
  const data: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.name];
    switch (f.type) {
      case 'boolean':
        data[f.name] = v === true;
        break;
      case 'string': {
        const s = typeof v === 'string' ? v : '';
        if (s === '') {
          if (f.required) errors[f.path] = 'This field is required.';
        } else data[f.name] = s;
        break;
      }
      case 'number':
      case 'integer': {
        const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
        if (s === '' || s === 'NaN') {
          // A number input reports unparseable text as empty, so "required" is the best message then.
          if (f.required) errors[f.path] = 'This field is required.';
          break;
        }
        const n = Number(s);
        if (!Number.isFinite(n)) errors[f.path] = 'Enter a number.';
        else if (f.type === 'integer' && !Number.isInteger(n)) errors[f.path] = 'Enter a whole number.';
        else data[f.name] = n;
        break;
      }
      case 'enum': {
        const i = typeof v === 'string' && v !== '' ? Number(v) : typeof v === 'number' ? v : NaN;
        if (!Number.isInteger(i) || i < 0 || i >= f.options.length) {
          if (f.required) errors[f.path] = 'Choose a value.';
        } else data[f.name] = f.options[i];
        break;
      }
    }
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, data };
}

export type ParseResult = { ok: true; data: unknown } | { ok: false; error: string };

/** Parses the raw JSON textarea. */
export function parseRawResumeData(text: string): ParseResult {
  if (!text.trim()) return { ok: false, error: 'Enter the resume data as JSON.' };
  try {
    return { ok: true, data: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export type ServerFieldError = { path: string; message: string };

/**
 * Sorts `invalid_resume_data` errors onto fields: an error at `/a` or below (`/a/b`) belongs to
 * field `a`; the rest (e.g. path `""` for the whole object) are returned as `other`.
 */
export function assignServerErrors(
  fields: Field[],
  details: unknown,
): { byPath: Record<string, string[]>; other: ServerFieldError[] } {
  const byPath: Record<string, string[]> = {};
  const other: ServerFieldError[] = [];
  for (const e of serverErrors(details)) {
    const f = fields.find((f) => e.path === f.path || e.path.startsWith(f.path + '/'));
    if (f) (byPath[f.path] ??= []).push(e.path === f.path ? e.message : `${e.path}: ${e.message}`);
    else other.push(e);
  }
  return { byPath, other };
}

/** Reads `details.errors` of an `invalid_resume_data` error defensively. */
export function serverErrors(details: unknown): ServerFieldError[] {
  if (!isPlainObject(details)) return [];
  const errs = (details as { errors?: unknown }).errors;
  if (!Array.isArray(errs)) return [];
  return errs
    .filter(isPlainObject)
    .map((e) => {
      const { path, message } = e as { path?: unknown; message?: unknown };
      return { path: typeof path === 'string' ? path : '', message: typeof message === 'string' ? message : String(message ?? '') };
    });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
