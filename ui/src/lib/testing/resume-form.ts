/** Shared by the resume form's tests: a form model from a schema, its fields, drafts, errors and data. */
import { checkForm, type Draft, type ObjectDraft } from '../resume-data';
import { buildResumeForm, type FormNode, type ResumeFormModel } from '../resume-form';

export type FormModel = Extract<ResumeFormModel, { mode: 'form' }>;

export function form(schema: unknown): FormModel {
  const m = buildResumeForm(schema);
  if (m.mode !== 'form') throw new Error(`expected a form, got raw: ${m.reason}`);
  return m;
}

/** The node and draft of a top-level field. */
export function field(m: FormModel, draft: ObjectDraft, name: string): { node: FormNode; draft: Draft } {
  const i = m.root.fields.findIndex((f) => f.name === name);
  if (i === -1) throw new Error(`no field ${name}`);
  return { node: m.root.fields[i].node, draft: draft.fields[i] };
}

/** A fresh draft (a deep copy of the initial one), as the component starts with. */
export const fresh = (m: FormModel) => structuredClone(m.initial);

/** The errors of `checkForm`, as { path: [messages] }. */
export function errorsOf(m: FormModel, d: ObjectDraft): Record<string, string[]> {
  const r = checkForm(m, d);
  const out: Record<string, string[]> = {};
  if (!r.ok) for (const e of r.errors) (out[e.path] ??= []).push(e.message);
  return out;
}

export function dataOf(m: FormModel, d: ObjectDraft): unknown {
  const r = checkForm(m, d);
  if (!r.ok) throw new Error(`not valid: ${JSON.stringify(r.errors)}`);
  return r.data;
}
