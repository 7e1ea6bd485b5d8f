import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { check, mountInBody, settle as settleAll, type } from '../testing/mount';
import ResumeForm from './ResumeForm.svelte';

const settle = () => settleAll({ rounds: 5, macrotasks: false });

function render(schema: unknown, answer: ApiError | null = null) {
  const submit = vi.fn(async (_data: unknown) => answer);
  const { target } = mountInBody(ResumeForm, { props: { schema, busy: false, submit } });
  flushSync();
  const q = <T extends HTMLElement = HTMLElement>(sel: string) => target.querySelector<T>(sel);
  const all = (sel: string) => [...target.querySelectorAll<HTMLElement>(sel)];
  const tid = (id: string) => q(`[data-testid="${id}"]`);
  /** The input (or select) of the field at a JSON path. */
  const input = <T extends HTMLElement = HTMLInputElement>(path: string) =>
    q<T>(`[data-field-path="${path}"] input, [data-field-path="${path}"] select`)!;
  const errorsAt = (path: string) => all(`[data-testid="field-error"][data-path="${path}"] li`).map((li) => li.textContent);
  const send = async () => {
    tid('resume-submit')!.click();
    await settle();
  };
  return { target, submit, q, all, tid, input, errorsAt, send };
}

const people = {
  type: 'object',
  properties: {
    reviewer: {
      type: 'object',
      title: 'Reviewer',
      properties: {
        name: { type: 'string', minLength: 2 },
        email: { type: 'string', format: 'email' },
      },
      required: ['name'],
    },
    due: { type: 'string', format: 'date' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
    priority: { enum: ['low', 'high'], default: 'low' },
    colour: { enum: ['red', 'green', 'blue', 'black'] },
  },
  required: ['reviewer', 'tags'],
};

describe('ResumeForm', () => {
  it('renders nested objects, lists, enums and formats with visible and announced required markers', () => {
    const { q, input, all, tid } = render(people);
    expect(q('fieldset[data-field-path="/reviewer"] legend')!.textContent).toContain('Reviewer');
    const name = input('/reviewer/name');
    expect(name.getAttribute('aria-required')).toBe('true');
    expect(q(`label[for="${name.id}"]`)!.textContent).toBe('name *');
    expect(input('/reviewer/email').getAttribute('aria-required')).toBeNull();
    expect(input('/reviewer/email').type).toBe('email');
    expect(input('/due').type).toBe('date');
    // Two values: radio buttons, the default chosen; four: a select.
    const radios = all('[data-field-path="/priority"] input[type="radio"]') as HTMLInputElement[];
    expect(radios.map((r) => [r.value, r.checked])).toEqual([
      ['', false],
      ['0', true],
      ['1', false],
    ]);
    expect(input<HTMLSelectElement>('/colour').tagName).toBe('SELECT');
    // A required list starts with minItems items.
    expect(all('[data-field-path="/tags"] [data-testid="array-item"]')).toHaveLength(1);
    expect(tid('remove-item')!.hasAttribute('disabled')).toBe(true);
  });

  it('adds and removes list items within minItems and maxItems', async () => {
    const { all, q, tid } = render(people);
    const add = tid('add-item') as HTMLButtonElement;
    add.click();
    await settle();
    expect(all('[data-testid="array-item"]')).toHaveLength(2);
    expect(add.disabled).toBe(true);
    // The new item's input has the focus.
    expect(document.activeElement).toBe(q('[data-field-path="/tags/1"] input'));
    (all('[data-testid="remove-item"]')[0] as HTMLButtonElement).click();
    await settle();
    expect(all('[data-testid="array-item"]')).toHaveLength(1);
    expect(add.disabled).toBe(false);
  });

  it('shows errors inline by path, tied to the input, focuses the first, and clears them as they are fixed', async () => {
    const { submit, input, errorsAt, send } = render(people);
    type(input('/reviewer/email'), 'someone@example.com');
    await send();
    expect(submit).not.toHaveBeenCalled();
    expect(errorsAt('/reviewer/name')).toEqual(['This field is required.']);
    const name = input('/reviewer/name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = name.getAttribute('aria-describedby')!.split(' ');
    expect(describedBy.map((id) => document.getElementById(id)?.dataset.path ?? 'hint')).toContain('/reviewer/name');
    expect(document.activeElement).toBe(name);

    type(name, 'A');
    await settle();
    expect(errorsAt('/reviewer/name')).toEqual(['Needs at least 2 characters.']);
    type(name, 'Ann');
    type(input('/tags/0'), 'urgent');
    await settle();
    expect(errorsAt('/reviewer/name')).toEqual([]);
    expect(name.hasAttribute('aria-invalid')).toBe(false);
    await send();
    expect(submit).toHaveBeenCalledWith({ reviewer: { name: 'Ann', email: 'someone@example.com' }, tags: ['urgent'], priority: 'low' });
  });

  it('shows the server\'s invalid_resume_data errors next to the matching fields, and the rest apart', async () => {
    const refusal = new ApiError('invalid_resume_data', 'bad', {
      errors: [
        { path: '/tags/0', message: '"urgent" is not one of the allowed tags' },
        { path: '', message: 'Additional properties are not allowed' },
      ],
    });
    const { input, errorsAt, send, tid } = render(people, refusal);
    type(input('/reviewer/name'), 'Ann');
    type(input('/tags/0'), 'urgent');
    await send();
    expect(errorsAt('/tags/0')).toEqual(['"urgent" is not one of the allowed tags']);
    expect(input('/tags/0').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(input('/tags/0'));
    expect(tid('form-errors')!.textContent).toContain('Additional properties are not allowed');
  });

  it('focuses the first control of a group whose own error comes first', async () => {
    const refusal = new ApiError('invalid_resume_data', 'bad', { errors: [{ path: '/tags', message: 'needs a known tag' }] });
    const { input, errorsAt, send, q } = render(people, refusal);
    type(input('/reviewer/name'), 'Ann');
    type(input('/tags/0'), 'x');
    await send();
    expect(errorsAt('/tags')).toEqual(['needs a known tag']);
    expect(q('fieldset[data-field-path="/tags"]')!.getAttribute('aria-describedby')).toContain(q('[data-testid="field-error"][data-path="/tags"]')!.id);
    expect(document.activeElement).toBe(input('/tags/0'));
  });

  it('switches to raw JSON and back, keeping the data', async () => {
    const { input, tid, q, submit, send } = render(people);
    type(input('/reviewer/name'), 'Ann');
    type(input('/tags/0'), 'x');
    tid('resume-mode')!.click();
    await settle();
    const raw = tid('resume-raw') as HTMLTextAreaElement;
    expect(JSON.parse(raw.value)).toEqual({ reviewer: { name: 'Ann' }, tags: ['x'], priority: 'low' });
    expect(tid('resume-mode')!.getAttribute('aria-pressed')).toBe('true');

    type(raw, JSON.stringify({ reviewer: { name: 'Bo', email: 'bo@example.com' }, tags: ['y', 'z'], priority: 'high', colour: 'blue' }));
    tid('resume-mode')!.click();
    await settle();
    expect(tid('resume-raw')).toBeNull();
    expect(input('/reviewer/name').value).toBe('Bo');
    expect(input('/tags/1').value).toBe('z');
    expect(q<HTMLInputElement>('[data-field-path="/priority"] input[value="1"]')!.checked).toBe(true);
    expect(input<HTMLSelectElement>('/colour').value).toBe('2');
    await send();
    expect(submit).toHaveBeenCalledWith({ reviewer: { name: 'Bo', email: 'bo@example.com' }, tags: ['y', 'z'], priority: 'high', colour: 'blue' });
  });

  it('stays in raw JSON when the form cannot show the data, and says why', async () => {
    const { tid } = render(people);
    tid('resume-mode')!.click();
    await settle();
    const raw = tid('resume-raw') as HTMLTextAreaElement;
    type(raw, '{"reviewer": {"name": "Ann"}, "tags": [], "surprise": 1}');
    tid('resume-mode')!.click();
    await settle();
    expect(tid('resume-raw')).toBe(raw);
    expect(tid('resume-switch-note')!.textContent).toContain('/surprise');
    type(raw, '{not json');
    tid('resume-mode')!.click();
    await settle();
    expect(tid('resume-switch-note')!.textContent).toMatch(/Not valid JSON/);
  });

  it('checks the raw editor against the schema the same way before sending', async () => {
    const { tid, submit, send } = render(people);
    tid('resume-mode')!.click();
    await settle();
    type(tid('resume-raw'), '{"reviewer": {}, "tags": []}');
    await send();
    expect(submit).not.toHaveBeenCalled();
    const listed = tid('form-errors')!.textContent!;
    expect(listed).toContain('/reviewer/name: This field is required.');
    expect(listed).toContain('/tags: Needs at least 1 item.');
    expect(tid('resume-raw')!.getAttribute('aria-invalid')).toBe('true');
  });

  it('uses the raw editor at once for a schema it cannot show, and still checks what it can', async () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/a' }, b: { type: 'integer' } }, required: ['b'], $defs: { a: { type: 'string' } } };
    const { tid, submit, send } = render(schema);
    expect(tid('resume-mode')).toBeNull();
    expect(tid('raw-reason')!.textContent).toContain('"$ref"');
    type(tid('resume-raw'), '{"a": 1}');
    await send();
    expect(submit).not.toHaveBeenCalled();
    expect(tid('form-errors')!.textContent).toContain('/b: This field is required.');
    // The form cannot show a `$ref`, but the check follows it, as the server does.
    type(tid('resume-raw'), '{"a": 1, "b": 2}');
    await send();
    expect(submit).not.toHaveBeenCalled();
    expect(tid('form-errors')!.textContent).toContain('/a: Must be text.');
    type(tid('resume-raw'), '{"a": "x", "b": 2}');
    await send();
    expect(submit).toHaveBeenCalledWith({ a: 'x', b: 2 });
  });

  it('mounts a 1,000-level schema as the raw editor without hanging', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 1000; i++) schema = { type: 'object', properties: { next: schema } };
    const started = performance.now();
    const { tid } = render(schema);
    expect(tid('resume-raw')).not.toBeNull();
    expect(tid('raw-reason')!.textContent).toMatch(/levels deep/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('shows untrusted titles, descriptions and values as text, hidden characters escaped', () => {
    const schema = {
      type: 'object',
      properties: {
        answer: {
          type: 'string',
          title: '<img src=x onerror="window.__pwned=1"> Answer',
          description: '</label><script>window.__pwned=1</script><b>bold</b> zero\u200Bwidth',
        },
        pick: { oneOf: [{ const: '<i>one</i>' }, { const: 'two\u202E' }] },
      },
    };
    const { target, input } = render(schema);
    expect(target.querySelector('img, script, b, i')).toBeNull();
    const answer = input('/answer');
    expect(document.querySelector(`label[for="${answer.id}"]`)!.textContent).toBe('<img src=x onerror="window.__pwned=1"> Answer');
    const hint = document.getElementById(answer.getAttribute('aria-describedby')!)!;
    expect(hint.textContent).toBe('</label><script>window.__pwned=1</script><b>bold</b> zero\\u{200B}width');
    expect(target.textContent).toContain('<i>one</i>');
    expect(target.textContent).toContain('two\\u{202E}');
    expect(target.textContent).not.toContain('\u202E');
  });

  it('sends null for a nullable field when its null box is ticked', async () => {
    const schema = { type: 'object', properties: { note: { type: ['string', 'null'] } }, required: ['note'] };
    const { q, input, submit, send } = render(schema);
    check(q('[data-testid="null-toggle"][data-path="/note"]'), true);
    await settle();
    expect(input('/note').disabled).toBe(true);
    await send();
    expect(submit).toHaveBeenCalledWith({ note: null });
  });

  it('offers the shapes of a oneOf and shows the chosen one\'s fields', async () => {
    const schema = {
      type: 'object',
      properties: {
        target: {
          oneOf: [
            { title: 'By id', type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
            { title: 'By name', type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          ],
        },
      },
      required: ['target'],
    };
    const { q, all, input, submit, send, errorsAt } = render(schema);
    const radios = all('[data-testid="choice-radios"] input') as HTMLInputElement[];
    expect(radios.map((r) => r.parentElement!.textContent!.trim())).toEqual(['By id', 'By name']);
    expect(input('/target/id')).not.toBeNull();
    await send();
    expect(errorsAt('/target/id')).toEqual(['This field is required.']);
    check(radios[1], true);
    await settle();
    expect(q('[data-field-path="/target/id"]')).toBeNull();
    type(input('/target/name'), 'db1');
    await send();
    expect(submit).toHaveBeenCalledWith({ target: { name: 'db1' } });
  });
});
