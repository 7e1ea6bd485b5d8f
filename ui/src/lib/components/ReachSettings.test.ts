// Settings → Channels and escalation (issue 28): an admin lists, adds, edits and removes channels,
// rules and on-call shifts and saves the one document with the settings' one Save (issue 45); the server's refusal is shown
// as it said it, the entry it names marked, and nothing is stored; an operator reads them with
// nothing to change. A channel's secret is not in the document: the local admin alone sets it, per
// channel, in a password field that is emptied once sent; nobody else is offered one.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type ReachChannel, type ReachSettings } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { check, mountInBody, settle, type } from '../testing/mount';
import SettingsView from './SettingsView.svelte';

const stored: ReachSettings = {
  channels: [
    { name: 'alice-hook', kind: 'webhook', person: 'alice', target: 'https://hooks.example/a', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: { from: '22:00', to: '07:00' }, includeArgs: false, enabled: true },
  ],
  rules: [{ name: 'payments', tools: ['send_money'], agents: [], sources: [], minRisk: 'high', steps: [{ afterSecs: 0, notify: ['alice'] }, { afterSecs: 600, notify: ['on-call'] }] }],
  onCall: [{ person: 'bob', days: [5, 6], from: '20:00', to: '08:00' }],
};

async function render(backend: FakeBackend, role: 'admin' | 'operator' | 'admin token' = 'admin') {
  const principal =
    role === 'admin'
      ? { name: 'me', role, kind: 'local' as const }
      : role === 'admin token'
        ? { name: 'boss', role: 'admin' as const, kind: 'token' as const }
        : { name: 'alice', role, kind: 'token' as const };
  if (principal.kind === 'token') backend.principal = principal;
  const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, principal) });
  await settle();
  const section = target.querySelector('[data-testid="reach-settings"]') as HTMLElement;
  const tid = (id: string) => section.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string, root: Element = section) => [...root.querySelectorAll(`[data-testid="${id}"]`)] as HTMLElement[];
  const inside = (root: Element | undefined, id: string) => root?.querySelector(`[data-testid="${id}"]`) as HTMLInputElement | null;
  /** The settings' one Save (issue 45: channels and escalation have no Save of their own any more). */
  const save = () => target.querySelector('[data-testid="settings-save"]') as HTMLElement | null;
  return { target, section, tid, all, inside, save };
}

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const saves = (backend: FakeBackend) => backend.calls.filter((c) => c.method === 'saveReachSettings').map((c) => c.args[0]);

function pick(el: HTMLElement | null, value: string) {
  const select = el as HTMLSelectElement;
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

describe('Settings: channels and escalation', () => {
  it('shows the stored channels, rules and shifts in their fields', async () => {
    const backend = new FakeBackend();
    backend.reach = structuredClone(stored);
    backend.channelSecretsKept = { 'alice-hook': 'file' };
    const { tid, all, inside, save } = await render(backend);
    expect(text(tid('reach-secrets-note'))).toContain('approval-console channels secret set NAME');
    const [channel] = all('reach-channel');
    expect(all('reach-channel').map((c) => c.dataset.name)).toEqual(['alice-hook']);
    expect(inside(channel, 'reach-channel-name')!.value).toBe('alice-hook');
    expect((inside(channel, 'reach-channel-kind') as unknown as HTMLSelectElement).value).toBe('webhook');
    expect(inside(channel, 'reach-channel-target')!.value).toBe('https://hooks.example/a');
    expect(inside(channel, 'reach-channel-secret-state')!.dataset.kept).toBe('file');
    expect(text(inside(channel, 'reach-channel-secret-state'))).toBe('Set (kept in an owner-only file)');
    expect(inside(channel, 'reach-channel-quiet')!.checked).toBe(true);
    expect([inside(channel, 'reach-channel-quiet-from')!.value, inside(channel, 'reach-channel-quiet-to')!.value]).toEqual(['22:00', '07:00']);
    // A webhook has no server, sender or transport security.
    expect(inside(channel, 'reach-channel-server')).toBeNull();
    expect(inside(channel, 'reach-channel-tls')).toBeNull();
    const [rule] = all('reach-rule');
    expect(inside(rule, 'reach-rule-tools')!.value).toBe('send_money');
    expect(all('reach-step', rule).map((s) => [inside(s, 'reach-step-amount')!.value, (inside(s, 'reach-step-unit') as unknown as HTMLSelectElement).value, inside(s, 'reach-step-notify')!.value])).toEqual([
      ['0', 'minutes', 'alice'],
      ['10', 'minutes', 'on-call'],
    ]);
    expect(text(rule)).toContain('Persons with a channel: alice.');
    const [shift] = all('reach-shift');
    expect(all('reach-shift-day', shift).map((d) => (d as HTMLInputElement).checked)).toEqual([false, false, false, false, false, true, true]);
    // Never a secret: the one password field per channel is the local admin's to set a new one, empty.
    expect([...tid('reach-form')!.querySelectorAll<HTMLInputElement>('input[type="password"]')].map((i) => [i.dataset.testid, i.value])).toEqual([
      ['reach-channel-secret-value', ''],
    ]);
  });

  it('adds a channel, a rule and a shift, saves the document, and shows it stored', async () => {
    const backend = new FakeBackend();
    const { tid, all, inside, save } = await render(backend);
    expect(text(tid('reach-no-channels'))).toContain('No channels');
    tid('reach-add-channel')!.click();
    await settle();
    const [channel] = all('reach-channel');
    expect(document.activeElement).toBe(inside(channel, 'reach-channel-name'));
    type(inside(channel, 'reach-channel-name'), 'ops-mail');
    pick(inside(channel, 'reach-channel-kind'), 'email');
    flushSync();
    type(inside(channel, 'reach-channel-person'), 'alice');
    type(inside(channel, 'reach-channel-target'), 'alice@example.com');
    type(inside(channel, 'reach-channel-server'), 'smtp.example.com:587');
    type(inside(channel, 'reach-channel-from'), 'console@example.com');
    // Its SMTP password: set at once, apart from the Save; the field is emptied, the value never shown.
    expect(text(inside(channel, 'reach-channel-secret-state'))).toBe('No secret set');
    type(inside(channel, 'reach-channel-secret-value'), 'smtp-pa55');
    flushSync();
    inside(channel, 'reach-channel-secret-set')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'setChannelSecret').map((c) => c.args)).toEqual([['ops-mail', 'smtp-pa55']]);
    expect(inside(channel, 'reach-channel-secret-value')!.value).toBe('');
    expect(text(inside(channel, 'reach-channel-secret-state'))).toBe('Set (kept in an owner-only file)');
    expect(text(inside(channel, 'reach-channel-secret-done'))).toBe('The secret of ops-mail is set.');
    expect(document.body.innerHTML).not.toContain('smtp-pa55');
    check(inside(channel, 'reach-channel-include-args'), true);

    tid('reach-add-rule')!.click();
    flushSync();
    const [rule] = all('reach-rule');
    type(inside(rule, 'reach-rule-name'), 'payments');
    type(inside(rule, 'reach-rule-tools'), 'send_money, refund');
    pick(inside(rule, 'reach-rule-min-risk'), 'high');
    check(rule.querySelector('[data-testid="reach-rule-source"][data-source="mastra"]') as HTMLElement, true);
    type(inside(all('reach-step', rule)[0], 'reach-step-notify'), 'alice');
    inside(rule, 'reach-add-step')!.click();
    flushSync();
    const second = all('reach-step', rule)[1];
    type(inside(second, 'reach-step-amount'), '15');
    type(inside(second, 'reach-step-notify'), 'on-call, everyone');

    tid('reach-add-shift')!.click();
    flushSync();
    const [shift] = all('reach-shift');
    type(inside(shift, 'reach-shift-person'), 'bob');
    check(all('reach-shift-day', shift)[0], true);
    flushSync();
    expect(tid('reach-unsaved')).not.toBeNull();

    save()!.click();
    await settle();
    const sent: ReachSettings = {
      channels: [
        { name: 'ops-mail', kind: 'email', person: 'alice', target: 'alice@example.com', server: 'smtp.example.com:587', from: 'console@example.com', username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: true, enabled: true },
      ],
      rules: [{ name: 'payments', tools: ['send_money', 'refund'], agents: [], sources: ['mastra'], minRisk: 'high', steps: [{ afterSecs: 0, notify: ['alice'] }, { afterSecs: 900, notify: ['on-call', 'everyone'] }] }],
      onCall: [{ person: 'bob', days: [0], from: '09:00', to: '17:00' }],
    };
    expect(saves(backend)).toEqual([sent]);
    expect(backend.reach).toEqual(sent);
    expect(text(tid('reach-saved'))).toBe('Channels and escalation: 1 channel, 1 rule, 1 on-call shift.');
    expect(tid('reach-unsaved')).toBeNull();
    expect(tid('reach-error')).toBeNull();
  });

  it("shows the server's refusal as it said it, marks the channel it names, and stores nothing", async () => {
    const backend = new FakeBackend();
    backend.reach = structuredClone(stored);
    backend.channelSecretsKept = { 'alice-hook': 'file' };
    const { tid, all, inside, save } = await render(backend);
    // Slack's URL is a secret: a Slack channel without one set cannot work.
    tid('reach-add-channel')!.click();
    flushSync();
    const fresh = all('reach-channel')[1];
    type(inside(fresh, 'reach-channel-name'), 'team-slack');
    type(inside(fresh, 'reach-channel-person'), 'ops');
    pick(inside(fresh, 'reach-channel-kind'), 'slack');
    flushSync();
    expect(inside(fresh, 'reach-channel-target')).toBeNull();
    save()!.click();
    await settle();
    expect(saves(backend)).toHaveLength(1);
    expect(backend.reach).toEqual(stored);
    expect(tid('reach-error')!.dataset.code).toBe('invalid_request');
    expect(text(tid('reach-error-message'))).toBe(
      'channel team-slack (Slack) needs its webhook URL as a secret, and none is set: the local admin sets it (`approval-console channels secret set team-slack`, or Settings → Channels in the desktop app)',
    );
    expect(tid('reach-form')!.getAttribute('aria-describedby')).toBe(tid('reach-error')!.id);
    expect(all('reach-channel').map((c) => c.classList.contains('invalid'))).toEqual([false, true]);
    expect(inside(fresh, 'reach-channel-name')!.getAttribute('aria-invalid')).toBe('true');
    expect(tid('reach-saved')).toBeNull();

    // Its secret set now (before the channel is stored): stored, and the refusal gone.
    type(inside(fresh, 'reach-channel-secret-value'), 'https://hooks.slack.example/T/B/X');
    flushSync();
    inside(fresh, 'reach-channel-secret-set')!.click();
    await settle();
    save()!.click();
    await settle();
    expect(tid('reach-error')).toBeNull();
    expect(backend.reach.channels!.map((c) => [c.name, backend.channelSecretsKept[c.name]])).toEqual([
      ['alice-hook', 'file'],
      ['team-slack', 'file'],
    ]);
    expect(JSON.stringify(backend.reach)).not.toContain('hooks.slack.example');
    expect(text(tid('reach-saved'))).toBe('Channels and escalation: 2 channels, 1 rule, 1 on-call shift.');
  });

  it("shows what the server warned of on a save, as text, and nothing once a later save warns of nothing", async () => {
    const backend = new FakeBackend();
    backend.reach = structuredClone(stored);
    backend.channelSecretsKept = { 'alice-hook': 'file' };
    backend.reachWarnings = ['3 calls already waiting are about to be sent to <b>alice-hook</b>'];
    const { tid, all, inside, save } = await render(backend);
    inside(all('reach-shift')[0], 'reach-shift-remove')!.click();
    flushSync();
    save()!.click();
    await settle();
    expect(saves(backend)).toHaveLength(1);
    const warned = all('reach-warning');
    expect(warned.map((w) => w.textContent)).toEqual(['3 calls already waiting are about to be sent to <b>alice-hook</b>']);
    expect(warned[0].querySelector('b')).toBeNull();
    expect(text(tid('reach-warnings'))).toContain('Saved — but note:');
    // A refused save leaves no earlier warning shown as if it were this one's.
    backend.channelSecretsKept = {};
    inside(all('reach-step')[1], 'reach-step-remove')!.click();
    flushSync();
    save()!.click();
    await settle();
    expect(tid('reach-error')).not.toBeNull();
    expect(tid('reach-warnings')).toBeNull();
    backend.channelSecretsKept = { 'alice-hook': 'file' };
    backend.reachWarnings = [];
    flushSync();
    save()!.click();
    await settle();
    expect(saves(backend)).toHaveLength(3);
    expect(tid('reach-error')).toBeNull();
    expect(tid('reach-warnings')).toBeNull();
  });

  it('removes entries, and sends nothing when nothing changed', async () => {
    const backend = new FakeBackend();
    backend.reach = structuredClone(stored);
    const { tid, all, inside, save } = await render(backend);
    save()!.click();
    await settle();
    expect(saves(backend)).toEqual([]);
    // One Save for every setting: a part with nothing changed says nothing.
    expect(tid('reach-saved')).toBeNull();
    inside(all('reach-step')[1], 'reach-step-remove')!.click();
    inside(all('reach-channel')[0], 'reach-channel-remove')!.click();
    inside(all('reach-shift')[0], 'reach-shift-remove')!.click();
    flushSync();
    save()!.click();
    await settle();
    expect(saves(backend)).toEqual([{ channels: [], rules: [{ ...stored.rules![0], steps: [{ afterSecs: 0, notify: ['alice'] }] }], onCall: [] }]);
  });

  it('gives an operator the document to read, with nothing to change and no Save', async () => {
    const backend = new FakeBackend();
    backend.reach = structuredClone(stored);
    const { section, tid, all, inside, save } = await render(backend, 'operator');
    expect(all('reach-channel')).toHaveLength(1);
    expect(save()).toBeNull();
    for (const id of ['reach-add-channel', 'reach-add-rule', 'reach-add-shift', 'reach-add-step', 'reach-channel-remove', 'reach-rule-remove', 'reach-shift-remove']) expect(tid(id), id).toBeNull();
    for (const input of section.querySelectorAll<HTMLInputElement>('input[type="text"], input[type="number"], input[type="time"], input[type="email"]')) {
      expect(input.readOnly || input.disabled, input.dataset.testid).toBe(true);
    }
    for (const input of section.querySelectorAll<HTMLInputElement | HTMLSelectElement>('select, input[type="checkbox"], input[type="radio"]')) {
      expect(input.disabled, input.dataset.testid).toBe(true);
    }
    expect(inside(all('reach-channel')[0], 'reach-channel-name')!.value).toBe('alice-hook');
    expect(section.querySelector('input[type="password"]')).toBeNull();
    expect(tid('reach-channel-secret-set')).toBeNull();
  });

  it("offers an admin token no secret to set: it sees whether one is set, and that only the local admin sets it", async () => {
    const backend = new FakeBackend();
    backend.reach = structuredClone(stored);
    backend.channelSecretsKept = { 'alice-hook': 'file' };
    const { section, tid, all, inside, save } = await render(backend, 'admin token');
    const [channel] = all('reach-channel');
    expect(save()).not.toBeNull();
    expect(inside(channel, 'reach-channel-secret-state')!.dataset.kept).toBe('file');
    expect(section.querySelector('input[type="password"]')).toBeNull();
    for (const id of ['reach-channel-secret-set', 'reach-channel-secret-remove']) expect(inside(channel, id), id).toBeNull();
    expect(text(inside(channel, 'reach-channel-secret'))).toContain('Only the local admin sets or removes it');
  });

  it('removes a channel\'s secret for the local admin, and saves a channel that named its secret by place without it', async () => {
    const backend = new FakeBackend();
    // As an older version stored it: the channel named a keyring entry.
    backend.reach = { ...structuredClone(stored), channels: [{ ...stored.channels![0], secretRef: 'hook-key' } as ReachChannel] };
    backend.channelSecretsKept = { 'alice-hook': 'file' };
    const { tid, all, inside, save } = await render(backend);
    const [channel] = all('reach-channel');
    inside(channel, 'reach-channel-secret-remove')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'removeChannelSecret').map((c) => c.args)).toEqual([['alice-hook']]);
    expect(inside(channel, 'reach-channel-secret-state')!.dataset.kept).toBe('none');
    expect(inside(channel, 'reach-channel-secret-remove')).toBeNull();
    type(inside(channel, 'reach-channel-secret-value'), 'new-key');
    flushSync();
    inside(channel, 'reach-channel-secret-set')!.click();
    await settle();
    // Unchanged otherwise, it is still to be saved: without the place it named.
    expect(tid('reach-unsaved')).not.toBeNull();
    save()!.click();
    await settle();
    expect(tid('reach-error')).toBeNull();
    expect(saves(backend)).toHaveLength(1);
    expect(Object.keys((saves(backend)[0] as ReachSettings).channels![0])).not.toContain('secretRef');
  });

  it('says why they could not be read, and reads them again on Retry', async () => {
    const backend = new FakeBackend();
    backend.failReachLoad = new ApiError('forbidden', 'this credential may not read them', null, 403);
    const { tid, save } = await render(backend);
    expect(text(tid('reach-load-error-message'))).toBe('this credential may not read them');
    backend.failReachLoad = null;
    tid('reach-retry')!.click();
    await settle();
    expect(tid('reach-load-error')).toBeNull();
    expect(tid('reach-form')).not.toBeNull();
  });
});
