import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import { ApiError, type Backend, type BackendEvent, type ConnectionStatus } from './backend';
import { TAURI_COMMANDS, TauriBackend, toApiError } from './tauri';
import { OPERATIONS } from './operations.gen';

/** The commands the desktop app registers: the catalog's window operations (`src/domain/catalog.rs`), as
 * `approval-console manifest --typescript` writes them (kept current by ui/scripts/check-api.sh; the
 * app's commands are checked against the catalog by tests/layers.rs). */
const COMMANDS: string[] = Object.entries(OPERATIONS)
  .filter(([, op]) => op.window)
  .map(([name]) => name);

type Invoked = { cmd: string; args: unknown };

/** Answers like the app: known commands with `answer(cmd)`, anything else the way Tauri refuses an unknown command. */
function mockApp(answer: (cmd: string, args: unknown) => unknown = () => ({ ok: true }), opts: { events?: boolean } = {}): Invoked[] {
  const invoked: Invoked[] = [];
  mockIPC(
    (cmd, args) => {
      invoked.push({ cmd, args });
      if (!COMMANDS.includes(cmd)) throw `command ${cmd} not found`;
      return answer(cmd, args);
    },
    { shouldMockEvents: opts.events ?? false },
  );
  return invoked;
}

async function until(cond: () => boolean, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Callbacks registered with the (mocked) IPC: one per attached event listener. */
function liveCallbacks(): number {
  return (window as unknown as { __TAURI_INTERNALS__: { callbacks: Map<number, unknown> } }).__TAURI_INTERNALS__.callbacks.size;
}

beforeEach(() => clearMocks());
afterEach(() => clearMocks());

describe('TauriBackend commands', () => {
  const engine = { name: 'remote', baseUrl: 'http://127.0.0.1:4111', token: 'secret', pollMs: 500 };
  const settings = { enabled: true, quietHours: { start: '22:00', end: '07:00' }, engines: null, agents: ['ops'], highRiskTools: ['rm'] };
  const expiry = { rules: [{ tool: 'delete_record', afterSecs: 3600 }, { tool: '*', afterSecs: 86400 }], warnBeforeSecs: 300 };
  const quorum = { rules: [{ tool: 'delete_record', approvals: 2 }] };
  const reach = {
    channels: [{ name: 'ops-mail', kind: 'email' as const, person: 'alice', target: 'alice@example.com', server: 'smtp.example.com:587', tls: 'starttls' as const, quietHours: { from: '22:00', to: '07:00' }, includeArgs: false, enabled: true }],
    rules: [{ name: 'payments', tools: ['send_money'], agents: [], sources: [], minRisk: 'high' as const, steps: [{ afterSecs: 0, notify: ['alice'] }, { afterSecs: 600, notify: ['on-call'] }] }],
    onCall: [{ person: 'bob', days: [5, 6], from: '20:00', to: '08:00' }],
  };
  const grant = {
    fromItem: 'q1',
    fingerprint: 'sha256:aa',
    scope: 'agent' as const,
    conditions: [{ pointer: '/id', op: 'prefix' as const, value: 'rec-' }],
    expiresInSecs: 3600,
  };
  const cases: { name: string; run: (b: Backend) => Promise<unknown>; cmd: string; args: unknown }[] = [
    { name: 'listQueue (defaults)', run: (b) => b.listQueue(), cmd: 'queue_page', args: { query: { tab: 'pending', limit: 50 } } },
    {
      name: 'listQueue (every filter)',
      run: (b) =>
        b.listQueue({ tab: 'awaiting_delivery', engine: 'remote', source: 'mastra', agent: 'ops', tool: 'rm', kind: 'suspend', thread: 't1', run: 'r1', q: ' rec 42 ', sort: 'oldest', limit: 10, cursor: 'c2' }),
      cmd: 'queue_page',
      args: { query: { tab: 'awaiting_delivery', engine: 'remote', source: 'mastra', agent: 'ops', tool: 'rm', kind: 'suspend', thread: 't1', run: 'r1', q: 'rec 42', sort: 'oldest', limit: 10, cursor: 'c2' } },
    },
    {
      name: 'listQueue (empty fields left out)',
      run: (b) => b.listQueue({ tab: 'all', engine: '', source: '', agent: '', tool: '', kind: '', thread: '', q: '  ', sort: 'newest', cursor: null }),
      cmd: 'queue_page',
      args: { query: { tab: 'all', limit: 50 } },
    },
    {
      name: 'queueCounts (filters and search only)',
      run: (b) => b.queueCounts({ tab: 'decided', agent: 'ops', q: 'rm', sort: 'oldest', limit: 5, cursor: 'c' }),
      cmd: 'queue_counts',
      args: { query: { agent: 'ops', q: 'rm' } },
    },
    {
      name: 'queueCounts (source)',
      run: (b) => b.queueCounts({ source: 'claude-code', kind: 'approval' }),
      cmd: 'queue_counts',
      args: { query: { source: 'claude-code', kind: 'approval' } },
    },
    { name: 'decisionHistory', run: (b) => b.decisionHistory({ cursor: '7' }), cmd: 'decision_history', args: { query: { limit: 50, cursor: '7' } } },
    { name: 'exportAudit', run: (b) => b.exportAudit('csv'), cmd: 'export_audit', args: { format: 'csv' } },
    { name: 'setLanguage', run: (b) => b.setLanguage!('ja'), cmd: 'set_language', args: { language: 'ja' } },
    { name: 'saveAuditExport', run: (b) => b.saveAuditExport!('jsonl'), cmd: 'save_audit_export', args: { format: 'jsonl' } },
    {
      name: 'testEngine',
      run: (b) => b.testEngine({ baseUrl: 'http://127.0.0.1:4111', token: 'secret' }),
      cmd: 'test_engine',
      args: { test: { baseUrl: 'http://127.0.0.1:4111', token: 'secret' } },
    },
    { name: 'getItem', run: (b) => b.getItem('q 1/é'), cmd: 'queue_item', args: { id: 'q 1/é' } },
    { name: 'previousCall', run: (b) => b.previousCall('q 1/é'), cmd: 'previous_call', args: { id: 'q 1/é' } },
    { name: 'policyView', run: (b) => b.policyView(), cmd: 'policy_view', args: {} },
    { name: 'shadowReport', run: (b) => b.shadowReport(), cmd: 'shadow_report', args: {} },
    { name: 'callReason', run: (b) => b.callReason('q 1/é'), cmd: 'call_reason', args: { id: 'q 1/é' } },
    { name: 'viewing', run: (b) => b.viewing('q 1/é'), cmd: 'viewing', args: { id: 'q 1/é' } },
    { name: 'stopViewing', run: (b) => b.stopViewing('q 1/é'), cmd: 'stop_viewing', args: { id: 'q 1/é' } },
    { name: 'approve', run: (b) => b.approve('q1', 'sha256:aa'), cmd: 'approve', args: { id: 'q1', fingerprint: 'sha256:aa' } },
    { name: 'decline', run: (b) => b.decline('q1', 'sha256:aa'), cmd: 'decline', args: { id: 'q1', fingerprint: 'sha256:aa' } },
    { name: 'decline (empty reason)', run: (b) => b.decline('q1', 'sha256:aa', ''), cmd: 'decline', args: { id: 'q1', fingerprint: 'sha256:aa' } },
    {
      name: 'decline (reason)',
      run: (b) => b.decline('q1', 'sha256:aa', 'too risky'),
      cmd: 'decline',
      args: { id: 'q1', fingerprint: 'sha256:aa', reason: 'too risky' },
    },
    {
      name: 'approveEdited',
      run: (b) => b.approveEdited('q1', 'sha256:aa', { id: 'rec-9', n: [1, null] }),
      cmd: 'approve_edited',
      args: { id: 'q1', fingerprint: 'sha256:aa', args: { id: 'rec-9', n: [1, null] } },
    },
    {
      name: 'resume',
      run: (b) => b.resume('q1', 'sha256:aa', { ok: [1, null] }),
      cmd: 'resume',
      args: { id: 'q1', fingerprint: 'sha256:aa', data: { ok: [1, null] } },
    },
    {
      name: 'resolve (ran, with what it returned)',
      run: (b) => b.resolve('q1', 'ran', 'sha256:aa', { rows: 3, note: null }),
      cmd: 'resolve',
      args: { id: 'q1', resolution: 'ran', fingerprint: 'sha256:aa', result: { rows: 3, note: null } },
    },
    { name: 'resolve (ran, no result)', run: (b) => b.resolve('q1', 'ran', 'sha256:aa'), cmd: 'resolve', args: { id: 'q1', resolution: 'ran', fingerprint: 'sha256:aa' } },
    {
      name: 'resolve (ran, a text result)',
      run: (b) => b.resolve('q1', 'ran', 'sha256:aa', 'deleted'),
      cmd: 'resolve',
      args: { id: 'q1', resolution: 'ran', fingerprint: 'sha256:aa', result: 'deleted' },
    },
    { name: 'resolve (did_not_run)', run: (b) => b.resolve('q1', 'did_not_run', 'sha256:aa'), cmd: 'resolve', args: { id: 'q1', resolution: 'did_not_run', fingerprint: 'sha256:aa' } },
    { name: 'resolve (run_again)', run: (b) => b.resolve('q1', 'run_again', 'sha256:aa'), cmd: 'resolve', args: { id: 'q1', resolution: 'run_again', fingerprint: 'sha256:aa' } },
    { name: 'listAudit (defaults)', run: (b) => b.listAudit(), cmd: 'audit_page', args: { query: { limit: 50 } } },
    { name: 'listAudit (page)', run: (b) => b.listAudit({ limit: 20, cursor: 'c9' }), cmd: 'audit_page', args: { query: { limit: 20, cursor: 'c9' } } },
    {
      name: 'listAudit (filters)',
      run: (b) => b.listAudit({ filter: { action: 'decision', agent: 'demo', source: 'http', from: '2026-01-01T00:00:00.000Z', until: '' } }),
      cmd: 'audit_page',
      args: { query: { limit: 50, action: 'decision', agent: 'demo', source: 'http', from: '2026-01-01T00:00:00.000Z' } },
    },
    { name: 'sources', run: (b) => b.sources(), cmd: 'sources', args: {} },
    { name: 'verifyAudit', run: (b) => b.verifyAudit(), cmd: 'verify_audit', args: {} },
    { name: 'listEngines', run: (b) => b.listEngines(), cmd: 'engines', args: {} },
    { name: 'addEngine', run: (b) => b.addEngine(engine), cmd: 'add_engine', args: { engine } },
    {
      name: 'editEngine',
      run: (b) => b.editEngine('remote', { baseUrl: 'http://h:1', clearToken: true }),
      cmd: 'edit_engine',
      args: { name: 'remote', changes: { baseUrl: 'http://h:1', clearToken: true } },
    },
    { name: 'removeEngine', run: (b) => b.removeEngine('remote'), cmd: 'remove_engine', args: { name: 'remote' } },
    { name: 'syncEngine', run: (b) => b.syncEngine('remote'), cmd: 'sync_engine', args: { name: 'remote' } },
    { name: 'engineAgents', run: (b) => b.engineAgents('remote'), cmd: 'engine_agents', args: { name: 'remote' } },
    { name: 'notificationStatus', run: (b) => b.notificationStatus(), cmd: 'notification_status', args: {} },
    { name: 'notificationSettings', run: (b) => b.notificationSettings(), cmd: 'notification_settings', args: {} },
    { name: 'saveNotificationSettings', run: (b) => b.saveNotificationSettings(settings), cmd: 'save_notification_settings', args: { settings } },
    { name: 'expirySettings', run: (b) => b.expirySettings(), cmd: 'expiry_settings', args: {} },
    { name: 'saveExpirySettings', run: (b) => b.saveExpirySettings(expiry), cmd: 'save_expiry_settings', args: { settings: expiry } },
    { name: 'quorumSettings', run: (b) => b.quorumSettings(), cmd: 'quorum_settings', args: {} },
    { name: 'saveQuorumSettings', run: (b) => b.saveQuorumSettings(quorum), cmd: 'save_quorum_settings', args: { settings: quorum } },
    {
      name: 'saveQuorumSettings (a widening confirmed)',
      run: (b) => b.saveQuorumSettings(quorum, true),
      cmd: 'save_quorum_settings',
      args: { settings: { ...quorum, confirmWidening: true } },
    },
    {
      name: 'saveNotificationSettings (a widening confirmed)',
      run: (b) => b.saveNotificationSettings(settings, true),
      cmd: 'save_notification_settings',
      args: { settings: { ...settings, confirmWidening: true } },
    },
    { name: 'snooze', run: (b) => b.snooze('q 1', 3600), cmd: 'snooze', args: { id: 'q 1', secs: 3600 } },
    { name: 'listGrants', run: (b) => b.listGrants(), cmd: 'grants', args: {} },
    { name: 'createGrant', run: (b) => b.createGrant(grant), cmd: 'create_grant', args: { grant } },
    { name: 'previewGrant', run: (b) => b.previewGrant(grant), cmd: 'preview_grant', args: { grant } },
    { name: 'revokeGrant', run: (b) => b.revokeGrant('g1'), cmd: 'revoke_grant', args: { id: 'g1' } },
    { name: 'listTokens', run: (b) => b.listTokens(), cmd: 'tokens', args: {} },
    { name: 'addToken', run: (b) => b.addToken({ name: 'ci', role: 'agent' }), cmd: 'add_token', args: { token: { name: 'ci', role: 'agent' } } },
    { name: 'revokeToken', run: (b) => b.revokeToken('ci bot'), cmd: 'revoke_token', args: { name: 'ci bot' } },
    { name: 'stats', run: (b) => b.stats(30), cmd: 'stats', args: { days: 30 } },
    { name: 'listDevices', run: (b) => b.listDevices(), cmd: 'list_devices', args: {} },
    { name: 'remoteSettings', run: (b) => b.remoteSettings(), cmd: 'remote_settings', args: {} },
    { name: 'saveRemoteSettings', run: (b) => b.saveRemoteSettings({ listen: '0.0.0.0:8443', publicName: 'c.example.com' }), cmd: 'save_remote_settings', args: { settings: { listen: '0.0.0.0:8443', publicName: 'c.example.com' } } },
    { name: 'startPairing', run: (b) => b.startPairing({ name: 'pixel' }), cmd: 'start_pairing', args: { request: { name: 'pixel' } } },
    { name: 'renameDevice', run: (b) => b.renameDevice('alice phone', 'pixel'), cmd: 'rename_device', args: { name: 'alice phone', rename: { name: 'pixel' } } },
    { name: 'revokeDevice', run: (b) => b.revokeDevice('alice phone'), cmd: 'revoke_device', args: { name: 'alice phone' } },
    { name: 'reachSettings', run: (b) => b.reachSettings(), cmd: 'reach_settings', args: {} },
    { name: 'saveReachSettings', run: (b) => b.saveReachSettings(reach), cmd: 'save_reach_settings', args: { settings: reach } },
    { name: 'channelSecrets', run: (b) => b.channelSecrets(), cmd: 'channel_secrets', args: {} },
    { name: 'testChannel', run: (b) => b.testChannel('ops-hook'), cmd: 'test_channel', args: { name: 'ops-hook' } },
    { name: 'setChannelSecret', run: (b) => b.setChannelSecret('ops-mail', 'pa55'), cmd: 'set_channel_secret', args: { name: 'ops-mail', secret: { value: 'pa55' } } },
    { name: 'removeChannelSecret', run: (b) => b.removeChannelSecret('ops-mail'), cmd: 'remove_channel_secret', args: { name: 'ops-mail' } },
    { name: 'claimCall', run: (b) => b.claimCall('q 1/é'), cmd: 'claim_call', args: { id: 'q 1/é' } },
    { name: 'callReach', run: (b) => b.callReach('q 1/é'), cmd: 'call_reach', args: { id: 'q 1/é' } },
    { name: 'reachStats', run: (b) => b.reachStats(30), cmd: 'reach_stats', args: { query: { days: 30 } } },
    { name: 'run (a declared operation, by name)', run: (b) => b.run('engine_kinds'), cmd: 'engine_kinds', args: {} },
    { name: 'run (with its path)', run: (b) => b.run('queue_item', { path: { id: 'q 1' } }), cmd: 'queue_item', args: { id: 'q 1' } },
    { name: 'autostart', run: (b) => b.autostart(), cmd: 'autostart', args: {} },
    { name: 'setAutostart (on)', run: (b) => b.setAutostart(true), cmd: 'set_autostart', args: { enabled: true } },
    { name: 'setAutostart (off)', run: (b) => b.setAutostart(false), cmd: 'set_autostart', args: { enabled: false } },
  ];

  for (const c of cases) {
    it(`${c.name} invokes ${c.cmd} with exactly its arguments and answers what it returns`, async () => {
      const answer = { answered: c.cmd };
      const invoked = mockApp((cmd) => (cmd === 'remove_engine' ? null : answer));
      const got = await c.run(new TauriBackend());
      expect(invoked).toEqual([{ cmd: c.cmd, args: c.args }]);
      expect(got).toEqual(['remove_engine', 'stop_viewing'].includes(c.cmd) ? undefined : answer);
    });
  }

  it('uses every command of the app, and only those', () => {
    expect(COMMANDS.length).toBeGreaterThan(30);
    // `session` has a test of its own (its answer is not passed through as it comes).
    expect(new Set([...cases.map((c) => c.cmd), 'session'])).toEqual(new Set(COMMANDS));
    expect([...TAURI_COMMANDS].sort()).toEqual([...COMMANDS].sort());
  });

  it('answers the local admin as its session, named by the app, and the local admin all the same when the app cannot say', async () => {
    let invoked = mockApp((cmd) => (cmd === 'session' ? { name: 'alice', role: 'operator', kind: 'token' } : null));
    expect(await new TauriBackend().session()).toEqual({ name: 'alice', role: 'admin', kind: 'local' });
    expect(invoked).toEqual([{ cmd: 'session', args: {} }]);
    clearMocks();
    invoked = mockApp(() => {
      throw { code: 'internal', message: 'no' };
    });
    expect(await new TauriBackend().session()).toEqual({ name: '', role: 'admin', kind: 'local' });
    expect(invoked.map((i) => i.cmd)).toEqual(['session']);
  });

  it('answers the booleans of autostart and set_autostart as they are', async () => {
    let on = false;
    mockApp((cmd, args) => {
      if (cmd === 'set_autostart') on = (args as { enabled: boolean }).enabled;
      return on;
    });
    const b = new TauriBackend();
    expect(await b.autostart()).toBe(false);
    expect(await b.setAutostart(true)).toBe(true);
    expect(await b.autostart()).toBe(true);
    expect(await b.setAutostart(false)).toBe(false);
  });

});

describe('TauriBackend errors', () => {
  it("turns the app's {code, message, details} into an ApiError with that code and no status", async () => {
    mockApp(() => {
      throw { code: 'fingerprint_mismatch', message: 'the call changed', details: { expected: 'a', actual: 'b' } };
    });
    const err = await new TauriBackend().approve('q1', 'sha256:aa').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('fingerprint_mismatch');
    expect(err.message).toBe('the call changed');
    expect(err.details).toEqual({ expected: 'a', actual: 'b' });
    expect(err.status).toBeNull();
  });

  it('keeps codes it does not know, and a missing details as null', async () => {
    mockApp(() => Promise.reject({ code: 'keyring_locked', message: 'locked' }));
    const err = await new TauriBackend().addEngine({ name: 'x', baseUrl: 'http://h' }).catch((e) => e);
    expect(err).toMatchObject({ code: 'keyring_locked', message: 'locked', details: null, status: null });
  });

  it("maps Tauri's own string errors (an unknown command, bad arguments) to internal", async () => {
    mockApp(() => {
      throw 'invalid args `query` for command `queue_page`: invalid type: string "x", expected u32';
    });
    const err = await new TauriBackend().listQueue().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('internal');
    expect(err.message).toContain('invalid args');
  });

  it("turns a refused set_autostart into an ApiError with the app's code", async () => {
    mockApp(() => {
      throw { code: 'internal', message: 'cannot change the autostart setting: permission denied' };
    });
    const err = await new TauriBackend().setAutostart(true).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'internal', message: 'cannot change the autostart setting: permission denied', status: null });
  });

  it('maps a thrown Error and odd values to internal', () => {
    expect(toApiError(new TypeError('no IPC'))).toMatchObject({ code: 'internal', message: 'no IPC' });
    expect(toApiError(null)).toMatchObject({ code: 'internal', message: 'null' });
    expect(toApiError({ code: 7 })).toMatchObject({ code: 'internal', message: '{"code":7}' });
    expect(toApiError(undefined).code).toBe('internal');
  });
});

describe('TauriBackend events', () => {
  function subscribe() {
    const events: BackendEvent[] = [];
    const states: ConnectionStatus[] = [];
    const stop = new TauriBackend().subscribe({ onEvent: (e) => events.push(e), onStatus: (s) => states.push(s) });
    return { events, states, stop };
  }

  it('reports open once the listeners are attached and maps queue, resync and open events', async () => {
    mockApp(undefined, { events: true });
    const { events, states, stop } = subscribe();
    await until(() => states.some((s) => s.state === 'open'));
    expect(states).toEqual([{ state: 'connecting' }, { state: 'open' }]);
    expect(liveCallbacks()).toBe(3);

    await emit('queue', { type: 'added', id: 'a' });
    await emit('queue', { type: 'updated', id: 'a' });
    await emit('queue', { type: 'exploded', id: 'a' }); // unknown type: ignored
    await emit('queue', 'not an object'); // ignored
    await emit('resync');
    await emit('open', { item: 'q1', reason: 'The call changed; review it before deciding.' });
    await emit('open', { item: null, reason: null });
    await emit('open', { item: 42, reason: { html: '<b>' } }); // not strings: null
    await emit('something-else', { item: 'x' }); // not listened to
    expect(events).toEqual([
      { kind: 'queue', type: 'added', id: 'a' },
      { kind: 'queue', type: 'updated', id: 'a' },
      { kind: 'resync' },
      { kind: 'open', item: 'q1', reason: 'The call changed; review it before deciding.' },
      { kind: 'open', item: null, reason: null },
      { kind: 'open', item: null, reason: null },
    ]);
    stop();
  });

  it('stops delivering and detaches its listeners when unsubscribed', async () => {
    mockApp(undefined, { events: true });
    const { events, states, stop } = subscribe();
    await until(() => states.some((s) => s.state === 'open'));
    await emit('queue', { type: 'added', id: 'a' });
    stop();
    await emit('queue', { type: 'added', id: 'b' });
    await emit('resync');
    await emit('open', { item: 'b', reason: null });
    expect(events).toEqual([{ kind: 'queue', type: 'added', id: 'a' }]);
    await until(() => liveCallbacks() === 0);
    stop(); // twice is harmless
  });

  it('detaches listeners that attach only after it was unsubscribed, and never reports open', async () => {
    mockApp(undefined, { events: true });
    const { events, states, stop } = subscribe();
    stop(); // before `listen` resolved
    await until(() => liveCallbacks() === 0);
    await new Promise((r) => setTimeout(r, 10));
    expect(liveCallbacks()).toBe(0);
    await emit('queue', { type: 'added', id: 'a' });
    expect(events).toEqual([]);
    expect(states).toEqual([{ state: 'connecting' }]);
  });

  it('reports stopped when the events cannot be listened to', async () => {
    mockIPC((cmd) => {
      if (cmd === 'plugin:event|listen') throw 'event.listen not allowed';
      return null;
    });
    const { states } = subscribe();
    await until(() => states.length === 2);
    expect(states[1].state).toBe('stopped');
    const err = (states[1] as { error: ApiError }).error;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('internal');
    expect(err.message).toContain('event.listen not allowed');
  });
});
