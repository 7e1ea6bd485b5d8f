import { describe, expect, it } from 'vitest';
import type { ReachChannel, ReachSettings } from './backend/backend';
import { badEntry, fromReachForm, newChannel, newRule, newShift, personsOf, splitList, toReachForm } from './reach-form';

const settings: ReachSettings = {
  channels: [
    { name: 'alice-hook', kind: 'webhook', person: 'alice', target: 'https://hooks.example/a', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: true, enabled: true },
    { name: 'bob-mail', kind: 'email', person: 'bob', target: 'bob@example.com', server: 'smtp.example.com:465', from: 'console@example.com', username: 'relay', tls: 'tls', caFile: '/etc/ac/ca.pem', quietHours: { from: '22:00', to: '07:00' }, includeArgs: false, enabled: false },
    { name: 'team-slack', kind: 'slack', person: 'ops', target: '', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: false, enabled: true },
  ],
  rules: [
    { name: 'payments', tools: ['send_money', 'refund'], agents: ['billing'], sources: ['mastra'], minRisk: 'high', steps: [{ afterSecs: 0, notify: ['alice'] }, { afterSecs: 900, notify: ['on-call', 'bob'] }, { afterSecs: 7200, notify: ['everyone'] }] },
  ],
  onCall: [{ person: 'bob', days: [5, 6], from: '20:00', to: '08:00' }, { person: 'alice', days: [], from: '08:00', to: '20:00' }],
};

describe('reach form', () => {
  it('reads the settings into the form and gives back the same settings', () => {
    const form = toReachForm(settings);
    expect(form.channels.map((c) => [c.name, c.kind])).toEqual([
      ['alice-hook', 'webhook'],
      ['bob-mail', 'email'],
      ['team-slack', 'slack'],
    ]);
    expect(form.channels[1]).toMatchObject({ quiet: true, quietFrom: '22:00', quietTo: '07:00', tls: 'tls', enabled: false });
    expect(form.rules[0]).toMatchObject({ tools: 'send_money, refund', agents: 'billing', minRisk: 'high' });
    expect(form.rules[0].steps).toEqual([
      { amount: '0', unit: 'minutes', notify: 'alice' },
      { amount: '15', unit: 'minutes', notify: 'on-call, bob' },
      { amount: '2', unit: 'hours', notify: 'everyone' },
    ]);
    expect(form.onCall[0].days).toEqual([false, false, false, false, false, true, true]);
    expect(fromReachForm(form)).toEqual(settings);
  });

  it('sends only what the kind uses and never where a secret is, trims names and splits the lists', () => {
    // A channel stored by an older version still names its secret by place: read without it.
    const old = { ...settings.channels![0], secretRef: 'hook-key', secretFile: '/x' } as ReachChannel;
    expect(Object.keys(fromReachForm(toReachForm({ channels: [old] })).channels![0])).not.toContain('secretRef');
    const form = toReachForm({ channels: [], rules: [], onCall: [] });
    form.channels.push({ ...newChannel(), name: ' hook ', person: ' alice ', kind: 'email', target: ' a@example.com ', server: 'smtp:25', from: 'c@example.com' });
    // Switched to a webhook: the mail fields are not sent.
    form.channels[0].kind = 'webhook';
    form.rules.push({ ...newRule(), name: 'r', tools: ' a,, b ,\nc', steps: [{ amount: 1.5, unit: 'minutes', notify: 'alice, on-call' }, { amount: null, unit: 'hours', notify: ' everyone ' }] });
    form.onCall.push({ ...newShift(), person: ' bob ', from: '09:00:00' });
    form.onCall[0].days[0] = true;
    expect(fromReachForm(form)).toEqual({
      channels: [
        { name: 'hook', kind: 'webhook', person: 'alice', target: 'a@example.com', server: null, from: null, username: null, tls: 'starttls', caFile: null, quietHours: null, includeArgs: false, enabled: true },
      ],
      rules: [{ name: 'r', tools: ['a', 'b', 'c'], agents: [], sources: [], minRisk: null, steps: [{ afterSecs: 90, notify: ['alice', 'on-call'] }, { afterSecs: 0, notify: ['everyone'] }] }],
      onCall: [{ person: 'bob', days: [0], from: '09:00', to: '17:00' }],
    });
    form.channels[0].kind = 'slack';
    expect(fromReachForm(form).channels![0].target).toBe('');
  });

  it('splits comma and line lists, and names the persons with a channel once', () => {
    expect(splitList(' a, b\nc,,  ')).toEqual(['a', 'b', 'c']);
    expect(splitList('')).toEqual([]);
    const form = toReachForm(settings);
    form.channels.push({ ...newChannel(), person: 'alice' });
    expect(personsOf(form)).toEqual(['alice', 'bob', 'ops']);
  });

  it("finds the channel, rule or shift the server's refusal names", () => {
    const form = toReachForm(settings);
    const none = { channel: -1, rule: -1, shift: -1 };
    expect(badEntry('channel bob-mail (Email) needs a target address and a server host:port', form)).toEqual({ ...none, channel: 1 });
    expect(badEntry('channel team-slack: quiet hours are HH:MM (UTC)', form)).toEqual({ ...none, channel: 2 });
    form.channels.push({ ...newChannel(), name: 'alice-hook' });
    expect(badEntry(`channel name "alice-hook": 1–64 letters, digits, '.', '_' or '-', each channel its own`, form)).toEqual({ ...none, channel: 3 });
    expect(badEntry('rule payments: each step tells someone, within a week', form)).toEqual({ ...none, rule: 0 });
    expect(badEntry('rule name "default": a plain word other than "default"', form)).toEqual(none);
    expect(badEntry('on-call shift of "alice": a person, days 0–6, HH:MM times', form)).toEqual({ ...none, shift: 1 });
    expect(badEntry('something else', form)).toEqual(none);
  });
});
