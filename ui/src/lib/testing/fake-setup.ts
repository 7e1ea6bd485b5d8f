/** The setup part of `FakeBackend`: remote engines, notifications, time limits and quorums, start at login. */
import {
  ApiError,
  type EngineChanges,
  type EngineKind,
  type EngineTest,
  type EngineTestResult,
  type EngineView,
  type ExpirySettings,
  type QuorumSettings,
  type NewEngine,
  type NotificationSettings,
  type NotifyStatus,
  type PolicyView,
  type ShadowReport,
  type SourceSeen,
  type SyncReport,
} from '../backend/backend';
import { FakeQueue, wire } from './fake-queue';
import { defaultNotificationSettings, makeEngine, makeNotifyStatus } from './fixtures';
import { checkQuietHours, checkWidening, widenings } from './server-rules';

export class FakeSetup extends FakeQueue {
  engines = new Map<string, EngineView>();
  /** What the next successful `syncEngine` reports. */
  syncReport: SyncReport = { full: true, agents: 1, listed: 2, added: 2, changed: 0, gone: 0, skipped: 0 };
  /** When set, `listEngines` fails with it (every time, until cleared). */
  failList: ApiError | null = null;
  /** What `sources` answers: the sources calls came from, the most recent first. */
  sourcesSeen: SourceSeen[] = [];
  /** When set, `sources` fails with it (every time, until cleared). */
  failSources: ApiError | null = null;
  /** What `notificationStatus` answers (a copy each time). */
  notifyStatus: NotifyStatus = makeNotifyStatus({ running: false, available: null });
  /** When set, `notificationStatus` fails with it (every time, until cleared). */
  failStatus: ApiError | null = null;
  /** The stored notification settings; reads and writes go through JSON, like the wire. */
  notifySettings: NotificationSettings = defaultNotificationSettings();
  /** When set, `notificationSettings` fails with it (every time, until cleared). */
  failSettings: ApiError | null = null;
  /**
   * The OS keyring as the server finds it: unless `ok`, an add or edit with a token and without
   * `sessionOnly` fails with `keyring_unavailable` / `keyring_locked` (503) and nothing is saved.
   */
  keyring: 'ok' | 'unavailable' | 'locked' = 'ok';
  /** Whether the app starts at login; `null`: not available here (the web build). */
  autostartEnabled: boolean | null = false;
  /** When set, the next `setAutostart` fails with it (and changes nothing). */
  failAutostart: ApiError | null = null;
  /** When set, `setAutostart` waits for this promise before answering (to see the saving state). */
  autostartGate: Promise<void> | null = null;
  /** What `engineKinds` answers: the server's registry of remote kinds, the default first. */
  kinds: EngineKind[] = ['mastra', 'langgraph'];
  /** When set, `engineKinds` fails with it (every time, until cleared). */
  failKinds: ApiError | null = null;
  /** What `testEngine` answers. */
  testResult: EngineTestResult = { result: 'reachable', message: 'reachable: 2 agents', agents: 2 };
  /** When set, `testEngine` waits for it before answering. */
  testGate: Promise<void> | null = null;

  /** The stored time limits; reads and writes go through JSON, like the wire. */
  expiry: ExpirySettings = { rules: [], warnBeforeSecs: 300 };

  async engineKinds(): Promise<EngineKind[]> {
    this.calls.push({ method: 'engineKinds', args: [] });
    if (this.failKinds) throw this.failKinds;
    return [...this.kinds];
  }

  /** Answers `testResult`, or fails like the server on a base URL that is not http(s). */
  async testEngine(test: EngineTest): Promise<EngineTestResult> {
    this.calls.push({ method: 'testEngine', args: [test] });
    if (this.testGate) await this.testGate;
    if (!/^https?:\/\//.test(test.baseUrl.trim())) throw new ApiError('invalid_request', `${JSON.stringify(test.baseUrl)}: only http and https URLs are supported`, null, 400);
    return { ...this.testResult };
  }

  addEngines(...engines: EngineView[]) {
    for (const e of engines) this.engines.set(e.name, e);
  }

  /** Like the server: a token goes to the keyring unless it is for this session only. */
  private storeToken(token: string | null | undefined, sessionOnly: boolean | undefined): void {
    if (!token?.trim() || sessionOnly || this.keyring === 'ok') return;
    if (this.keyring === 'locked') throw new ApiError('keyring_locked', 'the OS keyring is locked', null, 503);
    throw new ApiError('keyring_unavailable', 'no OS keyring: org.freedesktop.secrets is not provided', null, 503);
  }

  private engine(name: string): EngineView {
    const e = this.engines.get(name);
    if (!e) throw new ApiError('not_found', `engine ${JSON.stringify(name)} not found`);
    return e;
  }

  async listEngines() {
    this.calls.push({ method: 'listEngines', args: [] });
    if (this.failList) throw this.failList;
    return [...this.engines.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async sources() {
    this.calls.push({ method: 'sources', args: [] });
    if (this.failSources) throw this.failSources;
    return wire(this.sourcesSeen);
  }

  async addEngine(engine: NewEngine) {
    this.engineCall('addEngine', [engine]);
    if (this.engines.has(engine.name)) throw new ApiError('invalid_request', `an engine named ${JSON.stringify(engine.name)} already exists`);
    this.storeToken(engine.token, engine.sessionOnly);
    // Like the server: the token is kept elsewhere and only `hasToken` / `sessionToken` are answered.
    const hasToken = !!engine.token?.trim();
    const e = makeEngine({ name: engine.name, kind: engine.kind ?? 'mastra', baseUrl: engine.baseUrl, hasToken, sessionToken: hasToken && !!engine.sessionOnly, pollMs: engine.pollMs ?? 1000 });
    this.engines.set(e.name, e);
    return e;
  }

  async editEngine(name: string, changes: EngineChanges) {
    this.engineCall('editEngine', [name, changes]);
    const cur = this.engine(name);
    // Like the server: a token never follows a changed URL by itself.
    const newUrl = !!changes.baseUrl && changes.baseUrl !== cur.baseUrl;
    if (newUrl && cur.hasToken && !changes.token?.trim() && !changes.keepToken && !changes.clearToken) {
      throw new ApiError('token_required', `the URL of engine ${name} changes: give its token again (or say to keep the stored token for the new host, or to clear it); nothing was changed`, null, 400);
    }
    this.storeToken(changes.token, changes.sessionOnly);
    const token = !!changes.token?.trim();
    const hasToken = token ? true : changes.clearToken ? false : cur.hasToken;
    const sessionToken = token ? !!changes.sessionOnly : changes.clearToken ? false : cur.sessionToken;
    const e = { ...cur, baseUrl: changes.baseUrl || cur.baseUrl, pollMs: changes.pollMs ?? cur.pollMs, hasToken, sessionToken };
    this.engines.set(name, e);
    return e;
  }

  async removeEngine(name: string) {
    this.engineCall('removeEngine', [name]);
    this.engine(name);
    this.engines.delete(name);
  }

  async syncEngine(name: string) {
    this.engineCall('syncEngine', [name]);
    return { report: { ...this.syncReport }, engine: this.engine(name) };
  }

  async engineAgents(name: string) {
    this.calls.push({ method: 'engineAgents', args: [name] });
    this.engine(name);
    return [{ id: 'ops', name: 'Ops', tools: [{ name: 'deleteRecord', requireApproval: true }] }];
  }

  async notificationStatus() {
    this.calls.push({ method: 'notificationStatus', args: [] });
    if (this.failStatus) throw this.failStatus;
    return { ...this.notifyStatus };
  }

  async notificationSettings() {
    this.calls.push({ method: 'notificationSettings', args: [] });
    if (this.failSettings) throw this.failSettings;
    return wire(this.notifySettings);
  }

  /** Like the server: checks the times, refuses an unconfirmed widening, stores the settings as sent, answers them back. */
  async saveNotificationSettings(settings: NotificationSettings, confirmWidening = false) {
    this.engineCall('saveNotificationSettings', confirmWidening ? [wire(settings), true] : [wire(settings)]);
    checkQuietHours(settings);
    checkWidening(widenings({ highRiskTools: this.notifySettings.highRiskTools }, { highRiskTools: settings.highRiskTools ?? [] }), confirmWidening);
    this.notifySettings = wire(settings);
    return wire(this.notifySettings);
  }

  async expirySettings() {
    this.calls.push({ method: 'expirySettings', args: [] });
    return wire(this.expiry);
  }

  quorum: QuorumSettings = { rules: [] };

  async quorumSettings() {
    this.calls.push({ method: 'quorumSettings', args: [] });
    return wire(this.quorum);
  }

  /** Like the server: a tool once, 2–10 approvals (`invalid_request` naming the rule); a quorum lowered only when confirmed. */
  async saveQuorumSettings(settings: QuorumSettings, confirmWidening = false) {
    this.calls.push({ method: 'saveQuorumSettings', args: confirmWidening ? [wire(settings), true] : [wire(settings)] });
    const rules = settings.rules ?? [];
    for (const [i, r] of rules.entries()) {
      if (r.tool.trim() === '') throw new ApiError('invalid_request', `quorum: rule ${i + 1} has no tool name`, null, 400);
      if (!(r.approvals >= 2 && r.approvals <= 10))
        throw new ApiError('invalid_request', `quorum: ${r.tool}: approvals must be 2 to 10, not ${r.approvals} (remove the rule for one approval)`, null, 400);
      if (rules.slice(0, i).some((o) => o.tool === r.tool)) throw new ApiError('invalid_request', `quorum: ${r.tool} has two rules`, null, 400);
    }
    const critical = settings.critical;
    if (critical != null && !(critical >= 2 && critical <= 10))
      throw new ApiError('invalid_request', `quorum: critical calls' approvals must be 2 to 10, not ${critical} (leave it out for none)`, null, 400);
    checkWidening(widenings({ quorum: this.quorum }, { quorum: settings }), confirmWidening);
    this.quorum = wire(critical == null ? { rules } : { rules, critical });
    return wire(this.quorum);
  }

  /** What `policyView` answers. */
  policy: PolicyView = { version: 'p-000000000000', file: 'high_risk_tools = []\n', applied: [] };

  /** What `shadowReport` answers. */
  shadow: ShadowReport = { grants: [] };

  async shadowReport() {
    this.calls.push({ method: 'shadowReport', args: [] });
    return wire(this.shadow);
  }

  async policyView() {
    this.calls.push({ method: 'policyView', args: [] });
    return wire(this.policy);
  }

  /** Like the server: each limit 1 s – 30 days, the warn window at most 30 days; `invalid_request` naming the rule. */
  async saveExpirySettings(settings: ExpirySettings) {
    this.calls.push({ method: 'saveExpirySettings', args: [wire(settings)] });
    for (const r of settings.rules ?? []) {
      if (!(r.afterSecs >= 1 && r.afterSecs <= MAX_SECS)) throw new ApiError('invalid_request', `${r.tool}: afterSecs must be 1 to ${MAX_SECS} (30 days), not ${r.afterSecs}`, null, 400);
    }
    if ((settings.warnBeforeSecs ?? 300) > MAX_SECS) throw new ApiError('invalid_request', `warnBeforeSecs must be at most ${MAX_SECS}`, null, 400);
    this.expiry = wire({ rules: settings.rules ?? [], warnBeforeSecs: settings.warnBeforeSecs ?? 300 });
    return wire(this.expiry);
  }

  /** Like the server: 60 s – 30 days from now, never earlier than the current deadline; refused without a time limit. */
  async snooze(id: string, secs: number) {
    this.engineCall('snooze', [id, secs]);
    const item = this.items.get(id);
    if (!item) throw new ApiError('not_found', `no item ${id}`, null, 404);
    if (!item.expiresAt) throw new ApiError('invalid_request', 'no time limit applies to this call', null, 400);
    if (secs < 60 || secs > MAX_SECS) throw new ApiError('invalid_request', `a snooze lasts 60 s to ${MAX_SECS} s (30 days), not ${secs}`, null, 400);
    const until = Math.max(Date.parse(item.expiresAt), Date.now() + secs * 1000);
    const updated = { ...item, expiresAt: new Date(until).toISOString() };
    this.items.set(id, updated);
    return updated;
  }

  async autostart() {
    this.calls.push({ method: 'autostart', args: [] });
    return this.autostartEnabled;
  }

  /** Like the apps: the web build refuses (`invalid_request`); otherwise stores and answers the setting. */
  async setAutostart(enabled: boolean) {
    this.calls.push({ method: 'setAutostart', args: [enabled] });
    if (this.autostartGate) await this.autostartGate;
    const err = this.failAutostart;
    this.failAutostart = null;
    if (err) throw err;
    if (this.autostartEnabled === null) throw new ApiError('invalid_request', 'only the desktop app can start at login', null, 400);
    this.autostartEnabled = enabled;
    return enabled;
  }
}

const MAX_SECS = 30 * 86_400;
