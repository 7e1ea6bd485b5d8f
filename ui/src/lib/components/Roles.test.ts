// What the console offers by role: it asks who the token is first, gives an agent's token a page of
// its own, and leaves out of an operator's console what only admins may do (grants, settings,
// engines), while revoking grants, syncing engines and deciding stay.
import { beforeAll, describe, expect, it, vi, afterEach } from 'vitest';
import { flushSync } from 'svelte';
import App from '../../App.svelte';
import { roleAtLeast } from '../access.svelte';
import { ApiError, type Principal } from '../backend/backend';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { FakeBackend, makeEngine, makeGrant, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import { memoryStorage } from '../testing/storage';
import { TokenStore } from '../token.svelte';
import Console from './Console.svelte';
import Detail from './Detail.svelte';
import EnginesView from './EnginesView.svelte';
import GrantsView from './GrantsView.svelte';
import SettingsView from './SettingsView.svelte';

// The Team view is loaded when its tab is first shown. Transforming its module (Chart.js with it)
// takes seconds on a loaded machine, longer than vi.waitFor's bound: it is loaded once here, so the
// tests' waits cover only the view's own rendering (the lazy import then resolves from the cache).
beforeAll(async () => {
  await import('./TeamView.svelte');
});

const OPERATOR: Principal = { name: 'alice', role: 'operator', kind: 'token' };
const AGENT: Principal = { name: 'support-bot', role: 'agent', kind: 'token' };
const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function tokenStore(token: string | null) {
  const storage = memoryStorage(token ? { 'approval-console.token': token } : {});
  return new TokenStore(storage, { hash: '', pathname: '/', search: '' }, { state: null, replaceState: () => {} });
}

function renderApp(backend: FakeBackend, auth: TokenStore | null = tokenStore('tok')) {
  const { target } = mountInBody(App, { props: { backend, auth } });
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, q };
}

const asked = (backend: FakeBackend, method: string) => backend.calls.filter((c) => c.method === method).length;

describe('roles', () => {
  afterEach(() => {
    i18n.set('system');
  });

  it('includes agent and viewer in operator, operator in admin, neither agent nor viewer in the other, and knows no other', () => {
    expect(roleAtLeast('admin', 'operator')).toBe(true);
    expect(roleAtLeast('operator', 'operator')).toBe(true);
    expect(roleAtLeast('operator', 'admin')).toBe(false);
    expect(roleAtLeast('agent', 'operator')).toBe(false);
    expect(roleAtLeast('operator', 'viewer')).toBe(true);
    expect(roleAtLeast('viewer', 'agent')).toBe(false);
    expect(roleAtLeast('agent', 'viewer')).toBe(false);
    expect(roleAtLeast('viewer', 'operator')).toBe(false);
    expect(roleAtLeast(null, 'agent')).toBe(false);
    expect(roleAtLeast('root' as never, 'agent')).toBe(false);
  });

  it('asks who the token is before the console asks anything, and says it in the header', async () => {
    const backend = new FakeBackend();
    backend.principal = OPERATOR;
    let open!: () => void;
    backend.sessionGate = new Promise((r) => (open = r));
    backend.add(makeItem());
    const { q } = renderApp(backend);
    await settle();
    expect(q('session-checking')).not.toBeNull();
    expect(q('queue-tab')).toBeNull();
    expect(asked(backend, 'listQueue')).toBe(0);
    open();
    await settle();
    expect(q('queue-tab')).not.toBeNull();
    expect(asked(backend, 'session')).toBe(1);
    const who = q('session')!;
    expect(text(who)).toBe('Signed in as alice (operator)');
    expect(who.dataset.role).toBe('operator');
    i18n.set('ja');
    flushSync();
    expect(text(who)).toBe('alice（オペレーター）としてログイン中');
  });

  it('names the local admin as such (the printed token, and the desktop window that has no name for it)', async () => {
    const web = new FakeBackend();
    web.principal = { name: 'bob', role: 'admin', kind: 'local' };
    const a = renderApp(web);
    await settle();
    expect(text(a.q('session'))).toBe("Signed in as you (bob, this computer's admin)");
    const desktop = new FakeBackend();
    desktop.principal = { name: '', role: 'admin', kind: 'local' };
    const b = renderApp(desktop, null);
    await settle();
    expect(text(b.q('session'))).toBe('Signed in as the local admin');
  });

  it("gives an agent's token a page saying what it is and how to get an operator token, and asks nothing of the queue", async () => {
    const backend = new FakeBackend();
    backend.principal = AGENT;
    backend.add(makeItem());
    const auth = tokenStore('agent-tok');
    const { q, target } = renderApp(backend, auth);
    await settle();
    const page = q('agent-page')!;
    expect(page).not.toBeNull();
    expect(text(page)).toContain("This token is an agent's");
    expect(text(q('agent-name'))).toBe('It is the token named support-bot, with the agent role.');
    expect(text(q('agent-how'))).toContain('approval-console tokens add NAME --role operator');
    expect(target.querySelector('[data-testid="queue-tab"], [data-testid="queue-item"], [data-testid="detail"]')).toBeNull();
    expect(backend.calls.map((c) => c.method)).toEqual(['session']);
    // Another token: back to the token screen.
    q('agent-other-token')!.click();
    await settle();
    expect(auth.token).toBeNull();
    expect(q('token-screen')).not.toBeNull();
  });

  it('shows a refused token on a page of its own, with the title in words, and asks again for another token', async () => {
    const backend = new FakeBackend();
    backend.failSession = new ApiError('unauthorized', 'missing or invalid token', null, 401);
    const auth = tokenStore('wrong');
    const { q } = renderApp(backend, auth);
    await settle();
    const banner = q('error-banner')!;
    expect(banner.dataset.code).toBe('unauthorized');
    expect(banner.getAttribute('role')).toBe('alert');
    expect(text(banner)).toBe('The access token is wrong or missing. missing or invalid token');
    expect(q('queue-tab')).toBeNull();
    expect(asked(backend, 'listQueue')).toBe(0);
    // A retry that works.
    backend.failSession = null;
    backend.principal = OPERATOR;
    q('session-retry')!.click();
    await settle();
    expect(q('queue-tab')).not.toBeNull();
    // A new token asks again.
    auth.set('other');
    await settle();
    expect(asked(backend, 'session')).toBe(3);
  });

  it('answers of an earlier token never show once another token is in use', async () => {
    const backend = new FakeBackend();
    backend.principal = AGENT;
    let open!: () => void;
    backend.sessionGate = new Promise((r) => (open = r));
    const auth = tokenStore('first');
    const { q } = renderApp(backend, auth);
    await settle();
    backend.sessionGate = null;
    backend.principal = OPERATOR;
    auth.set('second');
    await settle();
    expect(q('queue-tab')).not.toBeNull();
    open(); // the first answer (an agent) arrives late
    await settle();
    expect(q('agent-page')).toBeNull();
    expect(text(q('session'))).toBe('Signed in as alice (operator)');
  });

  it('offers an operator no "Always allow" in the detail, but Approve and Decline', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const mk = (p: Principal | null) => {
      const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend, p) });
      flushSync();
      return target;
    };
    const admin = mk({ name: 'me', role: 'admin', kind: 'local' });
    expect(admin.querySelector('[data-testid="grant-open"]')).not.toBeNull();
    for (const p of [OPERATOR, null]) {
      const t = mk(p);
      expect(t.querySelector('[data-testid="grant"], [data-testid="grant-open"]')).toBeNull();
      expect(t.querySelector('[data-testid="approve"]')).not.toBeNull();
      expect(t.querySelector('[data-testid="decline"]')).not.toBeNull();
    }
  });

  it("shows an operator the settings read-only, says an admin changes them, and offers no Save", async () => {
    const backend = new FakeBackend();
    backend.notifySettings = { enabled: true, quietHours: { start: '22:00', end: '07:00' }, engines: ['local'], agents: null, highRiskTools: ['delete_record'] };
    backend.expiry = { rules: [{ tool: 'delete_record', afterSecs: 1800 }], warnBeforeSecs: 300 };
    const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, OPERATOR) });
    await settle();
    const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLInputElement | null;
    expect(text(tid('settings-admin-only'))).toContain('Only an admin changes them');
    expect(tid('settings-save')).toBeNull();
    expect(tid('settings-save-bar')).toBeNull();
    // What is stored is shown, and nothing can be changed.
    expect(tid('notify-high-risk')!.value).toBe('delete_record');
    for (const id of ['notify-engines', 'notify-agents', 'notify-high-risk', 'notify-quiet-start', 'notify-quiet-end', 'expiry-rule-tool', 'expiry-rule-amount', 'expiry-warn-amount']) {
      expect(tid(id)!.readOnly, id).toBe(true);
    }
    for (const id of ['notify-enabled', 'notify-quiet', 'expiry-rule-unit', 'expiry-warn-unit']) expect(tid(id)!.disabled, id).toBe(true);
    expect(tid('expiry-add-rule')).toBeNull();
    expect(tid('expiry-rule-remove')).toBeNull();
    // Enter in a field submits the form: nothing is sent.
    (target.querySelector('[data-testid="settings-form"]') as HTMLFormElement).requestSubmit();
    await settle();
    expect(backend.calls.filter((c) => c.method.startsWith('save'))).toEqual([]);
    // Appearance stays this browser's own.
    expect(tid('language-ja')!.disabled).toBe(false);
  });

  it('keeps the settings editable with one Save for an admin', async () => {
    const backend = new FakeBackend();
    const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
    await settle();
    const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLInputElement | null;
    expect(tid('settings-admin-only')).toBeNull();
    expect(tid('settings-save')).not.toBeNull();
    expect(tid('notify-high-risk')!.readOnly).toBe(false);
    expect(tid('expiry-add-rule')).not.toBeNull();
  });

  it('shows an operator the engines with health, Sync and Agents, but no Add, Edit, Remove or Test', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'prod', hasToken: true, sessionToken: true, health: { state: 'auth_failed', lastError: 'token refused', lastErrorAt: null, lastOkAt: null } }));
    const onerror = vi.fn();
    const { target } = mountInBody(EnginesView, { props: { onerror, refreshMs: 60_000 }, context: backendContext(backend, OPERATOR) });
    await settle();
    const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
    expect(tid('engine')).not.toBeNull();
    expect(text(tid('engine-health'))).toBe('auth failed');
    expect(text(tid('engines-admin-only'))).toContain('Only an admin adds, edits or removes engines');
    for (const id of ['engine-edit', 'engine-remove', 'engine-reenter-token', 'add-engine', 'add-engine-form', 'engine-test']) expect(tid(id), id).toBeNull();
    expect(target.querySelector('form')).toBeNull();
    tid('engine-sync')!.click();
    await settle();
    expect(backend.calls.some((c) => c.method === 'syncEngine')).toBe(true);
    tid('engine-agents')!.click();
    await settle();
    expect(tid('engine-agents-tree')).not.toBeNull();
  });

  it("offers an operator and an admin the Team view in the header's tabs; an agent's token gets neither it nor its figures", async () => {
    // jsdom's canvas has no context (and says so on the console each time it is asked).
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    try {
      for (const principal of [OPERATOR, { name: 'root', role: 'admin', kind: 'token' } as Principal]) {
        const backend = new FakeBackend();
        backend.principal = principal;
        const { q } = renderApp(backend);
        await settle();
        const tab = q('team-tab')!;
        expect(tab.getAttribute('role'), principal.role).toBe('tab');
        expect(text(tab)).toBe('Statistics');
        tab.click();
        // The view is loaded when its tab is first shown.
        await vi.waitFor(() => expect(q('team-view')?.closest('[role="tabpanel"]')?.id, principal.role).toBe('panel-team'));
        await settle();
        expect(backend.calls.filter((c) => c.method === 'stats').map((c) => c.args)).toEqual([[7]]);
      }
      const backend = new FakeBackend();
      backend.principal = AGENT;
      const { q } = renderApp(backend);
      await settle();
      expect(q('agent-page')).not.toBeNull();
      expect(q('team-tab')).toBeNull();
      expect(q('team-view')).toBeNull();
      expect(asked(backend, 'stats')).toBe(0);
    } finally {
      flushSync();
      vi.restoreAllMocks();
    }
  });

  it("gives a viewer's token the team figures on a page of their own, and asks nothing of the queue", async () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    try {
      const backend = new FakeBackend();
      backend.principal = { name: 'grafana', role: 'viewer', kind: 'token' };
      backend.add(makeItem());
      const auth = tokenStore('viewer-tok');
      const { q, target } = renderApp(backend, auth);
      await vi.waitFor(() => expect(q('team-view')).not.toBeNull());
      await settle();
      expect(text(q('viewer-name'))).toBe('Signed in with the token named grafana, with the viewer role.');
      expect(target.querySelector('[data-testid="queue-tab"], [data-testid="queue-item"], [data-testid="agent-page"]')).toBeNull();
      // The team's figures and the time to decision by channel, nothing else.
      expect(backend.calls.map((c) => c.method).sort()).toEqual(['reachStats', 'session', 'stats']);
      q('viewer-other-token')!.click();
      await settle();
      expect(auth.token).toBeNull();
    } finally {
      flushSync();
      vi.restoreAllMocks();
    }
  });

  it('lets an operator revoke a grant', async () => {
    const backend = new FakeBackend();
    backend.grants = [makeGrant({ id: 'g1' })];
    const { target } = mountInBody(GrantsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, OPERATOR) });
    await settle();
    (target.querySelector('[data-testid="revoke"]') as HTMLElement).click();
    await settle();
    (target.querySelector('[data-testid="revoke-confirm-yes"]') as HTMLElement).click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'revokeGrant').map((c) => c.args)).toEqual([['g1']]);
  });

  it('shows a forbidden refusal in words with the server message, whatever asked for it', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem());
    const { target } = mountInBody(Console, { props: {}, context: backendContext(backend, OPERATOR) });
    await settle();
    (target.querySelector('[data-testid="queue-item"]') as HTMLElement).click();
    flushSync();
    backend.failNext = new ApiError('forbidden', 'this needs the operator role; bot is agent', { needed: 'operator', role: 'agent' }, 403);
    (target.querySelector('[data-testid="decline"]') as HTMLElement).click();
    await settle();
    const banner = target.querySelector('[data-testid="error-banner"][data-code="forbidden"]')!;
    expect(text(banner.querySelector('strong'))).toBe("This token's role does not allow this. Nothing was changed.");
    expect(text(banner)).toContain('this needs the operator role; bot is agent');
    expect(text(banner)).not.toContain('code:');
  });
});
