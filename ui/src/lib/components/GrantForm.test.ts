// "Approve and always allow…" safe by default (issue 23): the narrowest scope, the waiting calls it
// would approve listed as text, a confirm step before anything is sent, glob and regex conditions,
// and no grant on a shell-like tool without a condition.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { check, mountInBody, settle, type } from '../testing/mount';
import GrantForm from './GrantForm.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const counted = { timeout: 5000 };

function renderForm(item: QueueItem, backend: FakeBackend) {
  const { target } = mountInBody(GrantForm, { props: { item }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
  const sent = (method: string) => backend.calls.filter((c) => c.method === method).map((c) => c.args[0]);
  return { target, q, all, sent };
}

function choose(el: Element | null, value: string) {
  const select = el as HTMLSelectElement;
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
  flushSync();
}

const escape = (el: Element | null) => el!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));

async function openCounted(q: (id: string) => HTMLElement | null) {
  q('grant-open')!.click();
  await settle();
  await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
}

describe('Always allow…, safe by default', () => {
  it('starts at the narrowest scope, this run, with the focus on it', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const { q } = renderForm(item, backend);
    q('grant-open')!.click();
    await settle();
    const run = q('grant-scope-run') as HTMLInputElement;
    expect(run.checked).toBe(true);
    expect((q('grant-scope-agent') as HTMLInputElement).checked).toBe(false);
    expect(document.activeElement).toBe(run);
    expect(text(q('grant-preview'))).toBe('Approves every delete_record call of run run-1 (agent demo on engine local), without asking.');
  });

  it('lists the waiting calls it would approve, oldest first, as text: tool, agent, who asked and the arguments in one line', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ id: 'q1', args: { id: 'rec-1' }, pausedAt: '2025-01-01T10:00:03Z' });
    backend.add(
      item,
      makeItem({
        id: 'q0',
        runId: 'run-7',
        agentId: '<img src=x onerror="globalThis.hacked=1">',
        requestedBy: { kind: 'token', name: '<b>ci-bot</b>' },
        args: { id: 'prod-db-main; rm -rf /', note: '<script>globalThis.hacked=1</script>\u202E' },
        pausedAt: '2025-01-01T10:00:01Z',
      }),
      makeItem({ id: 'q9', toolName: 'lookup_record' }),
    );
    const { q, all, target } = renderForm(item, backend);
    await openCounted(q);
    // This run: the call on screen only.
    expect(all('grant-waiting-call').map((li) => li.dataset.id)).toEqual(['q1']);
    expect(text(all('grant-waiting-call')[0])).toBe('delete_record (this call) agent demo id: "rec-1"');

    (q('grant-scope-engine') as HTMLInputElement).click();
    flushSync();
    await expect.poll(() => all('grant-waiting-call').map((li) => li.dataset.id), counted).toEqual(['q0', 'q1']);
    const hostile = all('grant-waiting-call')[0];
    expect(text(hostile)).toBe(
      'delete_record agent <img src=x onerror="globalThis.hacked=1"> asked by <b>ci-bot</b> id: "prod-db-main; rm -rf /", note: "<script>globalThis.hacked=1</script>\\u{202E}"',
    );
    expect(text(hostile.querySelector('[data-testid="grant-waiting-args"]'))).toBe('id: "prod-db-main; rm -rf /", note: "<script>globalThis.hacked=1</script>\\u{202E}"');
    expect(hostile.querySelector('[data-testid="grant-waiting-by"]')!.getAttribute('title')).toBe('The credential that submitted this call or started its run');
    expect(hostile.querySelector('[data-mark="hidden"]')).not.toBeNull();
    expect(target.querySelector('img, script, b')).toBeNull();
    expect((globalThis as { hacked?: number }).hacked).toBeUndefined();
    expect(q('grant-waiting-list')!.getAttribute('aria-label')).toBe('The waiting calls it approves now');
    expect(q('grant-waiting-more')).toBeNull();
  });

  it('says "and N more" when more calls are covered than the server lists', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ id: 'q00', args: { id: 'rec-0' } });
    backend.add(item, ...Array.from({ length: 52 }, (_, i) => makeItem({ id: `q${String(i + 1).padStart(2, '0')}`, args: { id: `rec-${i + 1}` } })));
    const { q, all } = renderForm(item, backend);
    await openCounted(q);
    expect(q('grant-waiting')!.dataset.count).toBe('53');
    expect(all('grant-waiting-call')).toHaveLength(50);
    expect(text(q('grant-waiting-more'))).toBe('and 3 more');
  });

  it('makes a grant that approves waiting calls only after a confirm listing them; Back and Esc send nothing and put the focus back', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ id: 'q1', args: { id: 'rec-1' } });
    backend.add(item, makeItem({ id: 'q2', args: { id: 'rec-2' } }), makeItem({ id: 'q3', runId: 'run-2', args: { id: 'rec-3' } }));
    const { q, all, sent } = renderForm(item, backend);
    await openCounted(q);
    const asked = sent('previewGrant').length;

    q('grant-save')!.click();
    await settle();
    expect(q('grant-form')!.dataset.step).toBe('confirm');
    // What is confirmed is the server's answer asked at the submit, for exactly this grant.
    expect(sent('previewGrant').length).toBe(asked + 1);
    expect(sent('createGrant')).toEqual([]);
    expect(text(q('grant-confirm-question'))).toBe('Approve these 2 waiting calls now and always allow later ones?');
    expect(text(q('grant-confirm-rule'))).toBe('Approves every delete_record call of run run-1 (agent demo on engine local), without asking.');
    expect(all('grant-waiting-call').map((li) => li.dataset.id)).toEqual(['q1', 'q2']);
    expect(q('grant-confirm-list')).not.toBeNull();
    const yes = q('grant-confirm-yes')!;
    expect(text(yes)).toBe('Approve these 2 calls and allow later ones');
    expect(document.activeElement).toBe(yes);
    expect(document.getElementById(yes.getAttribute('aria-describedby')!)).toBe(q('grant-confirm-question'));
    expect(q('grant-confirm')!.getAttribute('role')).toBe('group');
    // The choices are not editable meanwhile: what was listed is what is sent.
    expect(q('grant-scope-run')).toBeNull();

    q('grant-back')!.click();
    await settle();
    expect(q('grant-form')!.dataset.step).toBe('edit');
    expect(document.activeElement).toBe(q('grant-save'));
    expect(sent('createGrant')).toEqual([]);

    q('grant-save')!.click();
    await settle();
    escape(q('grant-confirm-yes'));
    await settle();
    expect(q('grant-form')!.dataset.step).toBe('edit'); // Esc backs out of the confirm, not out of the form
    expect(document.activeElement).toBe(q('grant-save'));
    escape(q('grant-save'));
    await settle();
    expect(q('grant-form')).toBeNull();
    expect(document.activeElement).toBe(q('grant-open'));
    expect(sent('createGrant')).toEqual([]);

    await openCounted(q);
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    expect(sent('createGrant')).toEqual([
      { fromItem: 'q1', fingerprint: item.fingerprint, scope: 'run', conditions: [], expiresInSecs: 3600, applyToWaiting: true },
    ]);
    expect(text(q('grant-made-count'))).toBe('It approved 2 calls waiting at once.');
  });

  it('offers glob and regex for a string argument, says what they never match, and sends what is typed', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ toolName: 'git', args: { command: 'git log --oneline', limit: 5 } });
    backend.add(item);
    const { q, all, sent } = renderForm(item, backend);
    await openCounted(q);
    const [command, limit] = all('grant-condition');
    const ops = (c: HTMLElement) => [...c.querySelectorAll('option')].map((o) => [o.value, o.textContent]);
    expect(ops(command)).toEqual([
      ['equals', 'equals'],
      ['prefix', 'starts with'],
      ['glob', 'matches the glob'],
      ['regex', 'matches the regex'],
    ]);
    expect(ops(limit).map(([v]) => v)).toEqual(['equals', 'atMost', 'atLeast']);

    check(command.querySelector('[data-testid="grant-condition-on"]'), true);
    choose(command.querySelector('[data-testid="grant-condition-op"]'), 'prefix');
    // Near "starts with": a chained command is never covered.
    const prefix = command.querySelector<HTMLInputElement>('[data-testid="grant-condition-prefix"]')!;
    const note = command.querySelector('[data-testid="grant-condition-note"]')!;
    expect(document.getElementById(prefix.getAttribute('aria-describedby')!)).toBe(note);
    expect(text(note)).toBe(
      'A command chained after the prefix (&&, ||, ;, |, a newline, $( ), ${ }, backticks, < or >) is never covered: such a call still waits for you.',
    );

    choose(command.querySelector('[data-testid="grant-condition-op"]'), 'glob');
    const pattern = command.querySelector<HTMLInputElement>('[data-testid="grant-condition-pattern"]')!;
    expect(pattern.getAttribute('aria-label')).toBe('The glob all of command must match');
    expect(text(command.querySelector('[data-testid="grant-condition-note"]'))).toContain('neither ever for a shell control character');
    type(pattern, 'git log *');
    flushSync();
    expect(text(q('grant-preview'))).toBe('Approves every git call of run run-1 (agent demo on engine local) when command matches the glob git log *, without asking.');
    await expect.poll(() => (sent('previewGrant').at(-1) as { conditions: unknown[] }).conditions, counted).toEqual([{ pointer: '/command', op: 'glob', value: 'git log *' }]);
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();

    q('grant-open')!.click();
    await settle();
    const again = all('grant-condition')[0];
    choose(again.querySelector('[data-testid="grant-condition-op"]'), 'regex');
    type(again.querySelector('[data-testid="grant-condition-pattern"]'), 'git (log|status)( --[a-z]+)*');
    flushSync();
    expect(text(again.querySelector('[data-testid="grant-condition-note"]'))).toBe('The whole value must match (the regular expression is anchored at both ends).');
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    expect(sent('createGrant').map((g) => (g as { conditions: unknown }).conditions)).toEqual([
      [{ pointer: '/command', op: 'glob', value: 'git log *' }],
      [{ pointer: '/command', op: 'regex', value: 'git (log|status)( --[a-z]+)*' }],
    ]);
  });

  it('makes no grant on a shell-like tool without a condition: says so, keeps the button off, and shows the server refusing it', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ toolName: 'Bash', args: { command: 'git status' } });
    backend.add(item);
    const { q, sent } = renderForm(item, backend);
    q('grant-open')!.click();
    await settle();
      await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('error'), counted);
    expect(q('grant-waiting-error')!.dataset.code).toBe('invalid_request');
    expect(text(q('grant-waiting-error'))).toContain('Bash runs whatever command it is given: a grant on it needs a condition');
    expect(text(q('grant-needs-condition'))).toBe(
      'Bash runs whatever command it is given: tick a condition on its arguments (for example "starts with" or "matches the glob") to always allow it.',
    );
    expect(text(q('grant-form')!.querySelectorAll('legend')[1])).toBe('Only when (needed)');
    const save = q('grant-save') as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    expect(document.getElementById(save.getAttribute('aria-describedby')!)).toBe(q('grant-needs-condition'));
    // Enter in the form (a submit without the button) sends nothing either.
    const asked = sent('previewGrant').length;
    (q('grant-form') as HTMLFormElement).requestSubmit();
    await settle();
    expect(q('grant-form')!.dataset.step).toBe('edit');
    expect(sent('previewGrant').length).toBe(asked);
    expect(sent('createGrant')).toEqual([]);

    check(q('grant-condition-on'), true);
    choose(q('grant-condition-op'), 'prefix');
    type(q('grant-condition-prefix'), 'git status');
    flushSync();
    expect(q('grant-needs-condition')).toBeNull();
    expect(save.disabled).toBe(false);
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    save.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    expect(sent('createGrant')).toMatchObject([{ conditions: [{ pointer: '/command', op: 'prefix', value: 'git status' }] }]);
    expect(backend.grants).toHaveLength(1);
  });

  it('says at the condition why the server refuses it: none on the command of a shell tool, or one that matches nearly any text', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ toolName: 'Bash', args: { command: 'git status', description: 'Show the working tree status' } });
    backend.add(item);
    const { q, all, sent } = renderForm(item, backend);
    q('grant-open')!.click();
    await settle();
    const row = (key: string) => all('grant-condition').find((r) => r.dataset.key === key)!;
    const refusedNote = (key: string) => row(key).querySelector<HTMLElement>('[data-testid="grant-condition-refused"]');

    // Only the description, which the agent writes: refused, and the command's row says it needs one.
    check(row('description').querySelector('[data-testid="grant-condition-on"]'), true);
    await vi.waitFor(() => expect(q('grant-waiting-error')?.dataset.code).toBe('grant_too_broad'), counted);
    expect(text(q('grant-waiting-error'))).toContain('These conditions would not limit what the tool runs');
    expect(text(q('grant-waiting-error'))).toContain('a grant on it needs a condition on the command itself ("/command")');
    expect(row('command').dataset.refused).toBe('notOnCommand');
    expect(text(refusedNote('command'))).toBe(
      'Needed: a condition on this argument, the command itself. Conditions on other arguments (such as a description the agent writes) leave it free to run anything.',
    );
    expect(refusedNote('description')).toBeNull();

    // A regex on the command that matches nearly anything: refused at the command, its pattern marked.
    const command = row('command');
    check(command.querySelector('[data-testid="grant-condition-on"]'), true);
    choose(command.querySelector('[data-testid="grant-condition-op"]'), 'regex');
    const pattern = command.querySelector<HTMLInputElement>('[data-testid="grant-condition-pattern"]')!;
    type(pattern, '(?s).*');
    flushSync();
    await vi.waitFor(() => expect(row('command').dataset.refused).toBe('matchesEverything'), counted);
    expect(text(refusedNote('command'))).toBe('This matches nearly any text, so it limits nothing: describe the commands it allows.');
    expect(pattern.getAttribute('aria-invalid')).toBe('true');
    expect(text(q('grant-waiting-error'))).toContain('matches nearly any text');

    // What the command looks like: the grant is made, with nothing marked.
    type(pattern, 'git status( --short)?');
    flushSync();
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'), counted);
    expect(row('command').dataset.refused).toBeUndefined();
    expect(pattern.hasAttribute('aria-invalid')).toBe(false);
    q('grant-save')!.click();
    await settle();
    q('grant-confirm-yes')!.click();
    await settle();
    expect(sent('createGrant')).toMatchObject([
      { conditions: [{ pointer: '/command', op: 'regex', value: 'git status( --short)?' }, { pointer: '/description', op: 'equals', value: 'Show the working tree status' }] },
    ]);
  });

  it('offers no "This run" for a call an agent submitted (a run of its own), starts at this agent, and says why', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ source: 'http', engine: 'http', agentId: 'billing-bot', runId: 'sub_1', toolName: 'refund_order', args: { order: 'o-1' } });
    backend.add(item);
    const { q } = renderForm(item, backend);
    q('grant-open')!.click();
    await settle();
    expect(q('grant-scope-run')).toBeNull();
    const agent = q('grant-scope-agent') as HTMLInputElement;
    expect(agent.checked).toBe(true);
    expect(document.activeElement).toBe(agent);
    expect(text(q('grant-no-run-scope'))).toBe('Not "This run": each call this agent submits is a run of its own, so such a rule would approve nothing later.');
    // An engine's call keeps all three, "This run" first.
    const local = makeItem({ id: 'q2' });
    backend.add(local);
    const other = renderForm(local, backend);
    other.q('grant-open')!.click();
    await settle();
    expect((other.q('grant-scope-run') as HTMLInputElement).checked).toBe(true);
    expect(other.q('grant-no-run-scope')).toBeNull();
  });

  it('says in its title, its note and its button what saving does: approve now, only later calls, or nothing in shadow', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const { q, target } = renderForm(item, backend);
    await openCounted(q);
    const words = () => [text(target.querySelector('h4')), text(q('grant-also-this-call')), text(q('grant-save'))];
    expect(words()).toEqual(['Approve delete_record now and always allow it', 'Saving approves this call at once, then every later call the rule covers.', 'Approve this call and always allow…']);
    check(q('grant-leave-waiting'), true);
    flushSync();
    expect(words()).toEqual(['Always allow later calls of delete_record', 'Saving approves nothing now; every later call the rule covers is approved.', 'Always allow later calls…']);
    check(q('grant-leave-waiting'), false);
    check(q('grant-shadow'), true);
    flushSync();
    expect(words()).toEqual(['Try a rule for delete_record in shadow', 'Saving approves nothing, now or later: the rule only reports what it would have approved.', 'Make it in shadow…']);
  });
});
