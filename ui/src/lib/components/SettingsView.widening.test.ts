// Widenings ask everywhere: a Save that removes a high-risk tool or lowers a quorum is held back by
// the server (`widening_unconfirmed`); the view lists what widens and saves it only on the confirm
// step ("Save anyway", sent with `confirmWidening`), or stores nothing ("Keep editing"). A change
// that narrows is saved at once.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import SettingsView from './SettingsView.svelte';

async function render(backend: FakeBackend) {
  const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll(`[data-testid="${id}"]`)] as HTMLElement[];
  const click = async (id: string) => {
    tid(id)!.click();
    await settle();
  };
  return { target, tid, all, click };
}

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const saves = (backend: FakeBackend, method: string) => backend.calls.filter((c) => c.method === method).map((c) => c.args);

describe('Settings: a change that widens asks first', () => {
  it('removing a high-risk tool lists the widening, stores nothing, and saves it on "Save anyway" with confirmWidening', async () => {
    const backend = new FakeBackend();
    backend.notifySettings = { ...backend.notifySettings, highRiskTools: ['delete_record', 'wipe'] };
    const { tid, all, click } = await render(backend);
    type(tid('notify-high-risk'), 'wipe');
    await click('settings-save');

    const confirm = tid('widening-confirm')!;
    expect(confirm.getAttribute('role')).toBe('alertdialog');
    expect(all('widening-line').map(text)).toEqual(['- high-risk tool delete_record (widens: its calls may be granted and approved from notifications)']);
    expect(backend.notifySettings.highRiskTools).toEqual(['delete_record', 'wipe']);
    expect(tid('settings-saved')).toBeNull();
    expect(tid('settings-save-error')).toBeNull();
    expect(document.activeElement).toBe(tid('widening-cancel'));

    await click('widening-save');
    const sent = saves(backend, 'saveNotificationSettings');
    expect(sent).toHaveLength(2);
    expect(sent[0]).toHaveLength(1);
    expect(sent[1]).toEqual([sent[0][0], true]);
    expect(backend.notifySettings.highRiskTools).toEqual(['wipe']);
    expect(tid('widening-confirm')).toBeNull();
    expect(text(tid('settings-saved'))).toContain('Notifications and high-risk tools apply to the next new call.');
  });

  it('"Keep editing" stores nothing and sends no confirmation; an edit after the question withdraws it', async () => {
    const backend = new FakeBackend();
    backend.notifySettings = { ...backend.notifySettings, highRiskTools: ['delete_record'] };
    const { tid, click } = await render(backend);
    type(tid('notify-high-risk'), '');
    await click('settings-save');
    expect(tid('widening-confirm')).not.toBeNull();
    await click('widening-cancel');
    expect(tid('widening-confirm')).toBeNull();
    expect(backend.notifySettings.highRiskTools).toEqual(['delete_record']);
    expect(tid('settings-unsaved')).not.toBeNull();

    await click('settings-save');
    expect(tid('widening-confirm')).not.toBeNull();
    type(tid('notify-high-risk'), 'delete_record');
    flushSync();
    expect(tid('widening-confirm')).toBeNull();
    expect(saves(backend, 'saveNotificationSettings').every((args) => args.length === 1)).toBe(true);
  });

  it('a quorum removed or the critical quorum lowered asks too, and is saved with confirmWidening once confirmed', async () => {
    const backend = new FakeBackend();
    backend.quorum = { rules: [{ tool: 'delete_record', approvals: 2 }], critical: 3 };
    const { tid, all, click } = await render(backend);
    tid('quorum-rule-remove')!.click();
    flushSync();
    type(tid('quorum-critical'), '2');
    await click('settings-save');
    expect(all('widening-line').map(text)).toEqual(['~ quorum delete_record: 2 → 1 approvals (widens)', '~ critical calls: 3 → 2 approvals (widens)']);
    expect(backend.quorum).toEqual({ rules: [{ tool: 'delete_record', approvals: 2 }], critical: 3 });
    expect(tid('quorum-save-error')).toBeNull();

    await click('widening-save');
    expect(saves(backend, 'saveQuorumSettings').at(-1)).toEqual([{ rules: [], critical: 2 }, true]);
    expect(backend.quorum).toEqual({ rules: [], critical: 2 });
    expect(text(tid('settings-saved'))).toContain('Every tool needs one approval.');
  });

  it('a change that narrows is saved at once, without the question', async () => {
    const backend = new FakeBackend();
    backend.quorum = { rules: [{ tool: 'delete_record', approvals: 2 }] };
    const { tid, all, click } = await render(backend);
    type(tid('notify-high-risk'), 'delete_record\nwipe');
    type(all('quorum-rule-approvals')[0], '3');
    await click('settings-save');
    expect(tid('widening-confirm')).toBeNull();
    expect(backend.notifySettings.highRiskTools).toEqual(['delete_record', 'wipe']);
    expect(backend.quorum.rules).toEqual([{ tool: 'delete_record', approvals: 3 }]);
    expect(saves(backend, 'saveQuorumSettings')).toEqual([[{ rules: [{ tool: 'delete_record', approvals: 3 }] }]]);
  });
});
