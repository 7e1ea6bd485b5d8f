import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeNotifyStatus } from '../testing/fake-backend';
import { mountInBody, settle, type, check } from '../testing/mount';
import { memoryStorage } from '../testing/storage';
import { THEME_STORAGE_KEY, ThemeSetting } from '../theme.svelte';
import SettingsView from './SettingsView.svelte';

async function render(backend: FakeBackend, refreshMs = 60_000) {
  const { target, unmount } = mountInBody(SettingsView, { props: { refreshMs }, context: backendContext(backend) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const input = (id: string) => tid(id) as HTMLInputElement;
  return { target, unmount, tid, input };
}



const text = (el: HTMLElement | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

async function save(tid: (id: string) => HTMLElement | null) {
  tid('settings-save')!.click();
  await settle();
}

describe('SettingsView', () => {
  it('shows the stored settings, each control labelled', async () => {
    const backend = new FakeBackend();
    backend.notifySettings = {
      enabled: false,
      quietHours: { start: '22:30', end: '06:45' },
      engines: ['local', 'prod'],
      agents: null,
      highRiskTools: ['delete_record', 'send_email'],
    };
    const { target, input } = await render(backend);
    expect(input('notify-enabled').checked).toBe(false);
    expect(input('notify-quiet').checked).toBe(true);
    expect(input('notify-quiet-start').value).toBe('22:30');
    expect(input('notify-quiet-end').value).toBe('06:45');
    expect(input('notify-engines').value).toBe('local, prod');
    expect(input('notify-agents').value).toBe('');
    expect(input('notify-agents').placeholder).toBe('all');
    expect(input('notify-high-risk').value).toBe('delete_record\nsend_email');
    expect(text(target.querySelector('#' + input('notify-high-risk').getAttribute('aria-describedby')))).toContain(
      'a notification offers only Decline and Open',
    );
    // Every field has a label (wrapping, or `for` its id).
    for (const el of target.querySelectorAll('input, textarea')) {
      const labelled = el.closest('label') ?? (el.id && target.querySelector(`label[for="${el.id}"]`));
      expect(labelled, `label for ${el.getAttribute('data-testid')}`).toBeTruthy();
    }
  });

  it('saves through the backend, and a fresh view loads what was saved', async () => {
    const backend = new FakeBackend();
    const first = await render(backend);
    const { tid, input } = first;
    expect(input('notify-quiet-start').disabled).toBe(true);
    check(tid('notify-quiet'), true);
    flushSync();
    expect(input('notify-quiet-start').disabled).toBe(false);
    type(tid('notify-quiet-start'), '23:00');
    type(tid('notify-quiet-end'), '06:00');
    type(tid('notify-agents'), 'ops, billing ,ops');
    type(tid('notify-high-risk'), 'delete_record\n\nsend_email, wire_money');
    await save(tid);

    const sent = { enabled: true, quietHours: { start: '23:00', end: '06:00' }, engines: null, agents: ['ops', 'billing'], highRiskTools: ['delete_record', 'send_email', 'wire_money'] };
    expect(backend.calls.filter((c) => c.method === 'saveNotificationSettings')).toEqual([{ method: 'saveNotificationSettings', args: [sent] }]);
    expect(backend.notifySettings).toEqual(sent);
    expect(tid('settings-saved')).not.toBeNull();
    // The form shows the answer, normalised.
    expect(input('notify-agents').value).toBe('ops, billing');
    first.unmount();

    const again = await render(backend);
    expect(again.input('notify-quiet').checked).toBe(true);
    expect(again.input('notify-quiet-start').value).toBe('23:00');
    expect(again.input('notify-quiet-end').value).toBe('06:00');
    expect(again.input('notify-engines').value).toBe('');
    expect(again.input('notify-agents').value).toBe('ops, billing');
    expect(again.input('notify-high-risk').value).toBe('delete_record\nsend_email\nwire_money');

    // Emptied filters go back to null (all), emptied high-risk tools to [], quiet hours off to null.
    type(again.tid('notify-agents'), '');
    type(again.tid('notify-high-risk'), '');
    check(again.tid('notify-quiet'), false);
    check(again.tid('notify-enabled'), false);
    await save(again.tid);
    // Emptying the high-risk tools widens: it is saved on the confirm step (SettingsView.widening.test.ts).
    again.tid('widening-save')!.click();
    await settle();
    expect(backend.notifySettings).toEqual({ enabled: false, quietHours: null, engines: null, agents: null, highRiskTools: [] });
  });

  it('shows a refused save by code with the server message, and keeps what was typed', async () => {
    const backend = new FakeBackend();
    const { tid, input } = await render(backend);
    check(tid('notify-quiet'), true);
    type(tid('notify-quiet-start'), '');
    type(tid('notify-high-risk'), 'delete_record');
    await save(tid);

    const err = tid('settings-save-error')!;
    expect(err.dataset.code).toBe('invalid_request');
    expect(err.getAttribute('role')).toBe('alert');
    expect(text(err)).toContain('The server rejected the request as invalid.');
    expect(text(tid('settings-save-error-message'))).toBe('quiet hours: "" is not a HH:MM time');
    expect(tid('settings-saved')).toBeNull();
    expect(input('notify-high-risk').value).toBe('delete_record');
    // Nothing was stored.
    expect(backend.notifySettings.highRiskTools).toEqual([]);

    // Another code gets its own title; fixing the time and saving again clears the error.
    backend.failNext = new ApiError('storage_busy', 'database is locked');
    type(tid('notify-quiet-start'), '21:00');
    await save(tid);
    expect(tid('settings-save-error')!.dataset.code).toBe('storage_busy');
    expect(text(tid('settings-save-error-message'))).toBe('database is locked');
    await save(tid);
    expect(tid('settings-save-error')).toBeNull();
    expect(backend.notifySettings).toMatchObject({ quietHours: { start: '21:00', end: '07:00' }, highRiskTools: ['delete_record'] });
  });

  it('a failed load says why and can be tried again', async () => {
    const backend = new FakeBackend();
    backend.failSettings = new ApiError('internal', 'stored notification settings are unreadable');
    const { tid } = await render(backend);
    expect(tid('settings-load-error')!.dataset.code).toBe('internal');
    expect(tid('notify-fields')).toBeNull();
    backend.failSettings = null;
    tid('settings-retry')!.click();
    await settle();
    expect(tid('settings-load-error')).toBeNull();
    expect(tid('notify-fields')).not.toBeNull();
  });

  it.each([
    [makeNotifyStatus({ available: true, shown: 7 }), 'working', 'Desktop notifications: on, working (7 shown)'],
    [makeNotifyStatus({ available: null }), 'untried', 'Desktop notifications: on, none shown yet'],
    [makeNotifyStatus({ running: false, available: null }), 'off', 'Desktop notifications: off in this process (start with serve --notify or use the desktop app)'],
  ])('status %#: %s', async (status, state, line) => {
    const backend = new FakeBackend();
    backend.notifyStatus = status;
    const { tid } = await render(backend);
    expect(tid('notify-status')!.dataset.state).toBe(state);
    expect(text(tid('notify-status'))).toBe(line);
  });

  it('status when unavailable: the error as text, since when, and how many calls were not told; fetched again while open', async () => {
    const backend = new FakeBackend();
    backend.notifyStatus = makeNotifyStatus({
      available: false,
      lastError: '<b>org.freedesktop.Notifications</b> was not provided',
      lastErrorAt: '2025-01-01T10:00:00Z',
      missed: 3,
    });
    const { tid } = await render(backend, 20);
    const line = tid('notify-status')!;
    expect(line.dataset.state).toBe('unavailable');
    expect(line.querySelector('b')).toBeNull();
    expect(text(line)).toMatch(
      /^Desktop notifications: on, but not available: <b>org\.freedesktop\.Notifications<\/b> was not provided \(since .+\); 3 calls not told$/,
    );
    expect(line.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T10:00:00Z');

    backend.notifyStatus = makeNotifyStatus({ available: true, shown: 1 });
    await new Promise((r) => setTimeout(r, 60));
    await settle();
    expect(text(tid('notify-status'))).toBe('Desktop notifications: on, working (1 shown)');
  });
});

describe('SettingsView: one way to save, each field saying what it governs', () => {
  it('saves notifications and time limits with one Save, saying what is unsaved until then', async () => {
    const backend = new FakeBackend();
    const { target, tid, input } = await render(backend);
    // One Save for all the settings the console keeps; none in a section of its own (Tokens, applied
    // at once, is a form of its own beside it).
    expect([...target.querySelectorAll('[data-testid="settings-form"] button[type="submit"]')].map((b) => b.getAttribute('data-testid'))).toEqual(['settings-save']);
    expect(text(tid('settings-save'))).toBe('Save settings');
    expect(text(target.querySelector('.intro'))).toContain('save them all with Save settings below');
    expect(tid('settings-unsaved')).toBeNull();

    type(tid('notify-high-risk'), 'delete_record');
    flushSync();
    expect(text(tid('settings-unsaved'))).toBe('Unsaved changes');
    tid('expiry-add-rule')!.click();
    await settle();
    type(target.querySelector('[data-testid="expiry-rule-tool"]') as HTMLElement, 'delete_record');
    await save(tid);
    expect(backend.notifySettings.highRiskTools).toEqual(['delete_record']);
    expect(backend.expiry.rules).toEqual([{ tool: 'delete_record', afterSecs: 3600 }]);
    expect(text(tid('settings-saved'))).toBe('Saved. Notifications and high-risk tools apply to the next new call. Time limits: delete_record after 1 h.');
    expect(tid('settings-unsaved')).toBeNull();
    // Editing again: the saved note goes, "unsaved" comes back.
    type(tid('notify-agents'), 'ops');
    flushSync();
    expect(tid('settings-saved')).toBeNull();
    expect(text(tid('settings-unsaved'))).toBe('Unsaved changes');
    expect(input('notify-agents').value).toBe('ops');
    // Appearance applies at once and says so.
    expect(text(tid('appearance-settings'))).toContain('applies at once, nothing to save');
  });

  it('says the engine and agent fields filter only what is notified, not what is queued', async () => {
    const { target, input } = await render(new FakeBackend());
    for (const id of ['notify-engines', 'notify-agents']) {
      const hint = text(target.querySelector('#' + input(id).getAttribute('aria-describedby')));
      expect(hint, id).toContain('This filters notifications only: every call is still queued and listed here.');
    }
  });

  it('does not show "show a desktop notification" ticked while this process shows none, and keeps the stored choice', async () => {
    const backend = new FakeBackend();
    backend.notifyStatus = makeNotifyStatus({ running: false, available: null });
    const { tid, input } = await render(backend);
    const box = input('notify-enabled');
    expect(box.checked).toBe(false);
    expect(box.disabled).toBe(true);
    expect(box.dataset.stored).toBe('on');
    const note = tid('notify-enabled-note')!;
    expect(box.getAttribute('aria-describedby')).toBe(note.id);
    expect(text(note)).toBe('Not in effect here: this process shows no notifications. It applies to serve --notify and to the desktop app, and is kept as it is.');
    type(tid('notify-agents'), 'ops');
    await save(tid);
    // Saved as it was stored: on.
    expect(backend.notifySettings).toMatchObject({ enabled: true, agents: ['ops'] });
  });

  it('says a ticked box does not work here while notifications fail', async () => {
    const backend = new FakeBackend();
    backend.notifyStatus = makeNotifyStatus({ available: false, lastError: 'no notification service' });
    const { tid, input } = await render(backend);
    expect(input('notify-enabled').checked).toBe(true);
    expect(input('notify-enabled').disabled).toBe(false);
    expect(tid('notify-enabled-note')!.dataset.state).toBe('unavailable');
    expect(text(tid('notify-enabled-note'))).toBe('On, but notifications do not work here: see the status above.');
    // Working: no note.
    backend.notifyStatus = makeNotifyStatus({ available: true, shown: 2 });
    const ok = await render(backend);
    expect(ok.input('notify-enabled').checked).toBe(true);
    expect(ok.tid('notify-enabled-note')).toBeNull();
  });
});

describe('SettingsView: start at login', () => {
  /** Ticks the box the way a click does: `checked` flips, then `change` fires. */
  function toggle(el: HTMLElement | null) {
    const input = el as HTMLInputElement;
    input.checked = !input.checked;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }

  it('is hidden where the backend cannot start the app at login (autostart() is null)', async () => {
    const backend = new FakeBackend();
    backend.autostartEnabled = null;
    const { target, tid } = await render(backend);
    expect(backend.calls.some((c) => c.method === 'autostart')).toBe(true);
    expect(tid('notify-fields')).not.toBeNull();
    expect(tid('desktop-settings')).toBeNull();
    expect(tid('autostart')).toBeNull();
    expect(text(target)).not.toContain('log in');
  });

  it('shows the current setting as a labelled, focusable checkbox in a Desktop section', async () => {
    const backend = new FakeBackend();
    backend.autostartEnabled = true;
    const { target, tid, input } = await render(backend);
    const section = tid('desktop-settings')!;
    expect(text(section.querySelector('h3'))).toBe('Desktop');
    expect(section.getAttribute('aria-labelledby')).toBe(section.querySelector('h3')!.id);
    const box = input('autostart');
    expect(box.type).toBe('checkbox');
    expect(box.checked).toBe(true);
    expect(box.disabled).toBe(false);
    expect(box.tabIndex).toBe(0);
    expect(text(box.closest('label'))).toBe('Start Approval Console when I log in');
    box.focus();
    expect(document.activeElement).toBe(box);
    // Text only: nothing but the heading, the label and an (empty) live region.
    expect(section.querySelectorAll('img, svg, a, [style]')).toHaveLength(0);
    expect(target.contains(box)).toBe(true);
  });

  it('saves each change at once: setAutostart(true), then setAutostart(false), and shows what was answered', async () => {
    const backend = new FakeBackend();
    backend.autostartEnabled = false;
    let release!: () => void;
    backend.autostartGate = new Promise<void>((r) => (release = r));
    const { tid, input } = await render(backend);
    expect(input('autostart').checked).toBe(false);

    toggle(tid('autostart'));
    flushSync();
    // While it is being saved: ticked, disabled, and saying so.
    expect(input('autostart').checked).toBe(true);
    expect(input('autostart').disabled).toBe(true);
    expect(text(tid('autostart-saving'))).toBe('Saving…');
    release();
    await settle();
    expect(input('autostart').checked).toBe(true);
    expect(input('autostart').disabled).toBe(false);
    expect(tid('autostart-saving')).toBeNull();
    expect(backend.autostartEnabled).toBe(true);

    backend.autostartGate = null;
    toggle(tid('autostart'));
    await settle();
    expect(input('autostart').checked).toBe(false);
    expect(backend.autostartEnabled).toBe(false);
    expect(backend.calls.filter((c) => c.method === 'setAutostart')).toEqual([
      { method: 'setAutostart', args: [true] },
      { method: 'setAutostart', args: [false] },
    ]);
    // The notification settings were not saved along the way.
    expect(backend.calls.some((c) => c.method === 'saveNotificationSettings')).toBe(false);
  });

  it('shows the setting the backend answers, even if it is not the one asked for', async () => {
    const backend = new FakeBackend();
    backend.autostartEnabled = false;
    backend.setAutostart = async (enabled: boolean) => {
      backend.calls.push({ method: 'setAutostart', args: [enabled] });
      return false;
    };
    const { tid, input } = await render(backend);
    toggle(tid('autostart'));
    await settle();
    expect(backend.calls.filter((c) => c.method === 'setAutostart')).toEqual([{ method: 'setAutostart', args: [true] }]);
    expect(input('autostart').checked).toBe(false);
    expect(tid('autostart-error')).toBeNull();
  });

  it('a refused change puts the box back and shows the error by code; the next change clears it', async () => {
    const backend = new FakeBackend();
    backend.autostartEnabled = false;
    backend.failAutostart = new ApiError('internal', 'cannot change the autostart setting: <b>read-only</b> file system');
    const { tid, input } = await render(backend);

    toggle(tid('autostart'));
    await settle();
    expect(input('autostart').checked).toBe(false);
    expect(input('autostart').disabled).toBe(false);
    expect(backend.autostartEnabled).toBe(false);
    const err = tid('autostart-error')!;
    expect(err.dataset.code).toBe('internal');
    expect(err.getAttribute('role')).toBe('alert');
    expect(text(err)).toContain('code: internal');
    expect(text(tid('autostart-error-message'))).toBe('cannot change the autostart setting: <b>read-only</b> file system');
    expect(err.querySelector('b')).toBeNull();
    expect(input('autostart').getAttribute('aria-describedby')).toBe(err.id);

    // Ticking again works and clears the error.
    toggle(tid('autostart'));
    await settle();
    expect(tid('autostart-error')).toBeNull();
    expect(input('autostart').checked).toBe(true);
    expect(input('autostart').getAttribute('aria-describedby')).toMatch(/^autostart-hint-/);
    // Unticking a box that was on, refused: it goes back on.
    backend.failAutostart = new ApiError('invalid_request', 'only the desktop app can start at login');
    toggle(tid('autostart'));
    await settle();
    expect(input('autostart').checked).toBe(true);
    expect(tid('autostart-error')!.dataset.code).toBe('invalid_request');
    expect(backend.autostartEnabled).toBe(true);
  });

  it('a failed read says why in the Desktop section and can be tried again', async () => {
    const backend = new FakeBackend();
    backend.autostartEnabled = true;
    const real = backend.autostart.bind(backend);
    let fail = true;
    backend.autostart = async () => {
      if (fail) throw new ApiError('internal', 'cannot read the autostart setting: no such file');
      return real();
    };
    const { tid, input } = await render(backend);
    expect(tid('desktop-settings')).not.toBeNull();
    expect(tid('autostart-load-error')!.dataset.code).toBe('internal');
    expect(tid('autostart')).toBeNull();
    fail = false;
    tid('autostart-retry')!.click();
    await settle();
    expect(tid('autostart-load-error')).toBeNull();
    expect(input('autostart').checked).toBe(true);
  });
});

describe('SettingsView: appearance', () => {
  it('offers system, light and dark, applies a choice at once and keeps it for the next start', async () => {
    const backend = new FakeBackend();
    const storage = memoryStorage();
    const root = document.createElement('html');
    const theme = new ThemeSetting(storage, root, { matches: true, addEventListener: () => {}, removeEventListener: () => {} });
    theme.start();
    const { target, unmount } = mountInBody(SettingsView, { props: { refreshMs: 60_000, theme }, context: backendContext(backend) });
    await settle();
    const radio = (c: string) => target.querySelector(`[data-testid="theme-${c}"]`) as HTMLInputElement;
    const section = target.querySelector('[data-testid="appearance-settings"]')!;
    expect(section.querySelector('legend')!.textContent).toBe('Theme');
    expect(text(radio('system').closest('label'))).toBe('System (follows this computer: dark now)');
    expect(radio('system').checked).toBe(true);
    expect(root.dataset.theme).toBe('dark');
    // The other sections are still there.
    expect(target.querySelector('[data-testid="notify-fields"]')).not.toBeNull();

    radio('light').checked = true;
    radio('light').dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    expect(root.dataset.theme).toBe('light');
    expect(storage.getItem(THEME_STORAGE_KEY)).toBe('light');
    expect(radio('system').checked).toBe(false);
    unmount();

    // The next start (a reload) reads it back.
    const again = new ThemeSetting(storage, document.createElement('html'), null);
    again.start();
    expect(again.choice).toBe('light');
    theme.dispose();
  });
});
