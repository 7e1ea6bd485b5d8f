/** An in-memory `Backend` for unit tests: records calls, answers from a map of items and engines. */
import {
  ApiError,
  type AuditEntry,
  type AuditVerification,
  type Backend,
  type DecisionRecord,
  type EngineChanges,
  type EngineTest,
  type EngineTestResult,
  type EngineView,
  type ExportFormat,
  type ExpirySettings,
  type QuorumSettings,
  type Grant,
  type NewGrant,
  type NewEngine,
  type NotificationSettings,
  type NotifyStatus,
  type Principal,
  type QueueCounts,
  type QueueFilter,
  type QueueItem,
  type QueuePage,
  type QueueTab,
  type ResolutionKind,
  type Subscriber,
  type SyncReport,
  type Viewer,
} from '../backend/backend';
import { matchesSearch } from '../search';
import type { TeamStats } from '../team';
import { decision, defaultNotificationSettings, fingerprintOf, makeEngine, makeGrant, makeNotifyStatus, makeTeamStats } from './fixtures';
import { checkGrantConditions, checkQuietHours, checkSourceFilter, holds, resolveLikeServer } from './server-rules';

export { decision, defaultNotificationSettings, fingerprintOf, makeAwaitingDecision, makeEngine, makeGrant, makeInterrupted, makeItem, makeNotifyStatus, makeTeamStats, emptyTeamStats, tabOf } from './fixtures';

export class FakeBackend implements Backend {
  items = new Map<string, QueueItem>();
  calls: { method: string; args: unknown[] }[] = [];
  /** When set, the next decision call fails with it. */
  failNext: ApiError | null = null;
  subscriber: Subscriber | null = null;
  /** Unset, like the web backend's; a test sets it to act as the desktop app, which saves exports itself. */
  saveAuditExport?: Backend['saveAuditExport'];
  /** Unset, like the web backend's; a test sets it to act as the desktop app. */
  setLanguage?: Backend['setLanguage'];
  engines = new Map<string, EngineView>();
  /** What the next successful `syncEngine` reports. */
  syncReport: SyncReport = { full: true, agents: 1, listed: 2, added: 2, changed: 0, gone: 0, skipped: 0 };
  /** When set, `listEngines` fails with it (every time, until cleared). */
  failList: ApiError | null = null;
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

  /** When set, `listQueue` fails with it (every time, until cleared). */
  failListQueue: ApiError | null = null;
  /** The audit log, oldest first. */
  audit: AuditEntry[] = [];
  /** What `verifyAudit` answers. */
  verification: AuditVerification = { ok: true, checked: 0, firstBad: null };
  /** What `decisionHistory` pages through, newest first. */
  history: DecisionRecord[] = [];
  /** When set, `exportAudit` fails with it. */
  failExport: ApiError | null = null;
  /** What `testEngine` answers. */
  testResult: EngineTestResult = { result: 'reachable', message: 'reachable: 2 agents', agents: 2 };
  /** When set, `testEngine` waits for it before answering. */
  testGate: Promise<void> | null = null;

  /** The stored time limits; reads and writes go through JSON, like the wire. */
  expiry: ExpirySettings = { rules: [], warnBeforeSecs: 300 };
  /** The grants, newest first. */
  grants: Grant[] = [];
  /** When set, the next `createGrant` / `revokeGrant` / `snooze` fails with it. */
  failGrant: ApiError | null = null;

  add(...items: QueueItem[]) {
    for (const i of items) this.items.set(i.id, i);
  }

  /** Like the server: the tab, filters and search, newest (or oldest) first, `limit` per page; the cursor is an offset. */
  async listQueue(filter: QueueFilter = {}): Promise<QueuePage> {
    this.calls.push({ method: 'listQueue', args: [filter] });
    if (this.failListQueue) throw this.failListQueue;
    const tab = filter.tab ?? 'pending';
    const items = this.matching(filter)
      .filter((i) => tab === 'all' || i.tab === tab)
      .sort((a, b) => Date.parse(b.pausedAt) - Date.parse(a.pausedAt) || (a.id < b.id ? 1 : -1));
    if (filter.sort === 'oldest') items.reverse();
    const from = Number(filter.cursor ?? 0);
    const limit = filter.limit ?? 50;
    const end = from + limit;
    return { items: items.slice(from, end), nextCursor: end < items.length ? String(end) : null };
  }

  /** The calls under the filter's filters and search (any tab); an unknown source is refused, as the server does. */
  private matching(f: QueueFilter): QueueItem[] {
    checkSourceFilter(f.source);
    return [...this.items.values()].filter(
      (i) =>
        (!f.engine || i.engine === f.engine) &&
        (!f.source || i.source === f.source) &&
        (!f.agent || i.agentId === f.agent) &&
        (!f.tool || i.toolName === f.tool) &&
        (!f.kind || i.kind === f.kind) &&
        (!f.thread || i.threadId === f.thread) &&
        (!f.run || i.runId === f.run) &&
        (!f.q || matchesSearch(i, f.q)),
    );
  }

  async queueCounts(filter: QueueFilter = {}): Promise<QueueCounts> {
    this.calls.push({ method: 'queueCounts', args: [filter] });
    const items = this.matching(filter);
    const n = (tab: QueueTab) => items.filter((i) => i.tab === tab).length;
    return {
      pending: n('pending'),
      awaitingDelivery: n('awaiting_delivery'),
      decided: n('decided'),
      expired: n('expired'),
      gone: n('gone'),
      all: items.length,
      pendingTotal: [...this.items.values()].filter((i) => i.tab === 'pending').length,
    };
  }

  async getItem(id: string) {
    this.calls.push({ method: 'getItem', args: [id] });
    const i = this.items.get(id);
    if (!i) throw new ApiError('not_found', `no item ${id}`);
    return i;
  }

  /** Who else has each call open, as the server would answer a heartbeat (the caller never in it). */
  viewers = new Map<string, Viewer[]>();
  heartbeatSecs = 10;
  /** Heartbeats and goodbyes, kept apart from `calls`: an open detail sends them on its own. */
  presence: { method: 'viewing' | 'stopViewing'; id: string }[] = [];

  async viewing(id: string) {
    this.presence.push({ method: 'viewing', id });
    if (!this.items.has(id)) throw new ApiError('not_found', `no item ${id}`);
    return { viewers: this.viewers.get(id) ?? [], heartbeatSecs: this.heartbeatSecs };
  }

  async stopViewing(id: string) {
    this.presence.push({ method: 'stopViewing', id });
  }

  /** Like the server: the last decided call (not an expiry) before `id`, same engine, thread and tool; order as inserted. */
  async previousCall(id: string) {
    this.calls.push({ method: 'previousCall', args: [id] });
    const all = [...this.items.values()];
    const at = all.findIndex((i) => i.id === id);
    if (at < 0) throw new ApiError('not_found', `no item ${id}`);
    const cur = all[at];
    if (cur.threadId == null) return { item: null };
    for (let k = at - 1; k >= 0; k--) {
      const p = all[k];
      if (p.engine === cur.engine && p.threadId === cur.threadId && p.toolName === cur.toolName && p.decision && p.decision.expiredAfterSecs == null) return { item: p };
    }
    return { item: null };
  }

  /** When set, a decision runs it once stored and before answering (e.g. to deliver the call's event first, as the server may). */
  beforeAnswer: ((item: QueueItem) => Promise<void>) | null = null;

  private async decide(method: string, id: string, fingerprint: string, decision: QueueItem['decision'], extra: unknown[]) {
    this.calls.push({ method, args: [id, fingerprint, ...extra] });
    const err = this.failNext;
    this.failNext = null;
    if (err) throw err;
    const item = { ...this.items.get(id)!, state: 'decided' as const, tab: 'awaiting_delivery' as const, allowed: [], decision };
    this.items.set(id, item);
    if (this.beforeAnswer) await this.beforeAnswer(item);
    return item;
  }

  /**
   * Like the server: under a quorum (the item's `quorum`) each operator (`principal`) approves once
   * (`already_approved`), and an approval short of it is recorded and answers the call still pending.
   */
  async approve(id: string, fingerprint: string) {
    const item = this.items.get(id);
    if (item && (item.quorum ?? 1) > 1 && !this.failNext) {
      const key = `${this.principal.kind}:${this.principal.name}`;
      const approvals = item.approvals ?? [];
      if (approvals.some((a) => a.operatorKey === key)) {
        this.calls.push({ method: 'approve', args: [id, fingerprint] });
        throw new ApiError('already_approved', `${this.principal.name} (web) already approved this call`, { approvals: approvals.length, quorum: item.quorum }, 409);
      }
      const mine = { operator: `${this.principal.name} (web)`, operatorKey: key, at: '2025-01-01T10:00:30Z' };
      if (approvals.length + 1 < (item.quorum ?? 1)) {
        this.calls.push({ method: 'approve', args: [id, fingerprint] });
        const waiting = { ...item, approvals: [...approvals, mine] };
        this.items.set(id, waiting);
        return wire(waiting);
      }
      this.items.set(id, { ...item, approvals: [...approvals, mine] });
    }
    return this.decide('approve', id, fingerprint, decision('approve', fingerprint, null, null), []);
  }
  decline(id: string, fingerprint: string, reason?: string) {
    return this.decide('decline', id, fingerprint, decision('decline', fingerprint, reason ?? null, null), [reason]);
  }
  resume(id: string, fingerprint: string, data: unknown) {
    return this.decide('resume', id, fingerprint, decision('resume', fingerprint, null, data), [data]);
  }
  /** Like the server: the decision holds the edited arguments and both fingerprints. */
  approveEdited(id: string, fingerprint: string, args: unknown) {
    const toolName = this.items.get(id)?.toolName ?? '';
    const d = { ...decision('edit', fingerprint, null, args), editedFingerprint: fingerprintOf(toolName, args) };
    return this.decide('approveEdited', id, fingerprint, d, [args]);
  }

  /** Like the server (`server-rules.ts`): interrupted calls only, once, fingerprint-bound; `run_again` adds the new, delivered entry. */
  async resolve(id: string, resolution: ResolutionKind, fingerprint: string, result?: unknown) {
    this.calls.push({ method: 'resolve', args: result === undefined ? [id, resolution, fingerprint] : [id, resolution, fingerprint, result] });
    const err = this.failNext;
    this.failNext = null;
    if (err) throw err;
    const { resolved, retry } = resolveLikeServer(this.items.get(id), resolution, fingerprint, result, `${id}-again`);
    this.items.set(id, resolved);
    if (retry) this.items.set(retry.id, retry);
    return wire(retry ?? resolved);
  }

  subscribe(s: Subscriber) {
    this.subscriber = s;
    return () => {
      this.subscriber = null;
    };
  }

  async listAudit(opts: { limit?: number; cursor?: string | null } = {}) {
    this.calls.push({ method: 'listAudit', args: [opts] });
    const entries = [...this.audit].reverse();
    const from = Number(opts.cursor ?? 0);
    const end = from + (opts.limit ?? 50);
    return { entries: entries.slice(from, end), nextCursor: end < entries.length ? String(end) : null };
  }

  async verifyAudit() {
    this.calls.push({ method: 'verifyAudit', args: [] });
    return { ...this.verification };
  }

  async decisionHistory(opts: { limit?: number; cursor?: string | null } = {}) {
    this.calls.push({ method: 'decisionHistory', args: [opts] });
    const from = Number(opts.cursor ?? 0);
    const end = from + (opts.limit ?? 50);
    return { items: this.history.slice(from, end), nextCursor: end < this.history.length ? String(end) : null };
  }

  /** Like the server's JSON Lines export (a CSV export here is only a header and the lines' count). */
  async exportAudit(format: ExportFormat) {
    this.calls.push({ method: 'exportAudit', args: [format] });
    if (this.failExport) throw this.failExport;
    if (format === 'jsonl') return this.audit.map((e) => JSON.stringify(e) + '\n').join('');
    return `seq,at,actor,action\r\n${this.audit.map((e) => `${e.seq},${e.at},${e.actor},${e.action}\r\n`).join('')}`;
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

  /** Records the call, then fails with `failNext` if set. Used by the engine changes. */
  private engineCall(method: string, args: unknown[]): void {
    this.calls.push({ method, args });
    const err = this.failNext;
    this.failNext = null;
    if (err) throw err;
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

  /** Like the server: checks the times, stores the settings as sent, answers them back. */
  async saveNotificationSettings(settings: NotificationSettings) {
    this.engineCall('saveNotificationSettings', [wire(settings)]);
    checkQuietHours(settings);
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

  /** Like the server: a tool once, 2–10 approvals; `invalid_request` naming the rule. */
  async saveQuorumSettings(settings: QuorumSettings) {
    this.calls.push({ method: 'saveQuorumSettings', args: [wire(settings)] });
    const rules = settings.rules ?? [];
    for (const [i, r] of rules.entries()) {
      if (r.tool.trim() === '') throw new ApiError('invalid_request', `quorum: rule ${i + 1} has no tool name`, null, 400);
      if (!(r.approvals >= 2 && r.approvals <= 10))
        throw new ApiError('invalid_request', `quorum: ${r.tool}: approvals must be 2 to 10, not ${r.approvals} (remove the rule for one approval)`, null, 400);
      if (rules.slice(0, i).some((o) => o.tool === r.tool)) throw new ApiError('invalid_request', `quorum: ${r.tool} has two rules`, null, 400);
    }
    this.quorum = wire({ rules });
    return wire(this.quorum);
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

  async listGrants() {
    this.calls.push({ method: 'listGrants', args: [] });
    return wire(this.grants);
  }

  /** Like the server: refuses high-risk tools (`highRiskTools` of the notification settings), suspend calls and a changed call. */
  async createGrant(grant: NewGrant) {
    this.engineCall('createGrant', [wire(grant)]);
    const item = this.items.get(grant.fromItem);
    if (!item) throw new ApiError('not_found', `no item ${grant.fromItem}`, null, 404);
    if ((this.notifySettings.highRiskTools ?? []).includes(item.toolName)) throw new ApiError('high_risk_tool', `${item.toolName} is a high-risk tool`, null, 409);
    if (item.kind !== 'approval') throw new ApiError('invalid_request', 'a suspend call cannot be always allowed', null, 400);
    if (grant.fingerprint !== item.fingerprint) throw new ApiError('fingerprint_mismatch', 'the call changed', null, 409);
    checkGrantConditions(item.toolName, item.args, grant.conditions ?? []);
    const made = makeGrant({
      id: `g${this.grants.length + 1}`,
      scope: grant.scope,
      engine: item.engine,
      agentId: grant.scope === 'engine' ? null : item.agentId,
      runId: grant.scope === 'run' ? item.runId : null,
      toolName: item.toolName,
      conditions: grant.conditions ?? [],
      requestedBy: grant.scope !== 'engine' && item.requestedBy ? `${item.requestedBy.kind}:${item.requestedBy.name}` : null,
      fromItem: item.id,
      expiresAt: new Date(Date.now() + grant.expiresInSecs * 1000).toISOString(),
    });
    const approvesWaiting = grant.applyToWaiting === false ? 0 : this.waitingCovered(made).length;
    this.grants.unshift(made);
    return wire({ grant: made, approvesWaiting });
  }

  /** Like the server: the pending approvals of the grant's tool and scope whose top-level arguments meet its conditions. */
  private waitingCovered(g: Grant): QueueItem[] {
    return [...this.items.values()].filter(
      (i) =>
        i.state === 'pending' &&
        i.kind === 'approval' &&
        i.toolName === g.toolName &&
        i.engine === g.engine &&
        (g.agentId === null || i.agentId === g.agentId) &&
        (g.runId === null || i.runId === g.runId) &&
        (g.requestedBy === null || (i.requestedBy !== null && `${i.requestedBy.kind}:${i.requestedBy.name}` === g.requestedBy)) &&
        g.conditions.every((c) => holds(c, i.args)),
    );
  }

  /** When set, `previewGrant` fails with it (every time, until cleared). */
  failPreview: ApiError | null = null;
  /** When set, `previewGrant` waits for it before answering. */
  previewGate: Promise<void> | null = null;

  /** Like the server: what `createGrant` would approve at once if applied to the waiting calls (whatever `applyToWaiting` says). */
  async previewGrant(grant: NewGrant) {
    this.calls.push({ method: 'previewGrant', args: [wire(grant)] });
    if (this.previewGate) await this.previewGate;
    if (this.failPreview) throw this.failPreview;
    const item = this.items.get(grant.fromItem);
    if (!item) throw new ApiError('not_found', `no item ${grant.fromItem}`, null, 404);
    if ((this.notifySettings.highRiskTools ?? []).includes(item.toolName)) throw new ApiError('high_risk_tool', `${item.toolName} is a high-risk tool`, null, 409);
    if (grant.fingerprint !== item.fingerprint) throw new ApiError('fingerprint_mismatch', 'the call changed', null, 409);
    checkGrantConditions(item.toolName, item.args, grant.conditions ?? []);
    const g = makeGrant({
      scope: grant.scope,
      engine: item.engine,
      agentId: grant.scope === 'engine' ? null : item.agentId,
      runId: grant.scope === 'run' ? item.runId : null,
      toolName: item.toolName,
      conditions: grant.conditions ?? [],
      requestedBy: grant.scope !== 'engine' && item.requestedBy ? `${item.requestedBy.kind}:${item.requestedBy.name}` : null,
    });
    // Oldest first, the first 50 listed (`PREVIEW_CALLS`).
    const covered = this.waitingCovered(g).sort((a, b) => Date.parse(a.pausedAt) - Date.parse(b.pausedAt));
    const waiting = covered.slice(0, 50).map((i) => ({
      id: i.id,
      toolName: i.toolName,
      agentId: i.agentId,
      runId: i.runId,
      args: i.args,
      fingerprint: i.fingerprint,
      pausedAt: i.pausedAt,
      requestedBy: i.requestedBy ? `${i.requestedBy.kind}:${i.requestedBy.name}` : null,
    }));
    return wire({ approvesWaiting: covered.length, includesFromItem: covered.some((i) => i.id === item.id), waiting });
  }

  async revokeGrant(id: string) {
    this.engineCall('revokeGrant', [id]);
    const i = this.grants.findIndex((g) => g.id === id);
    if (i < 0) throw new ApiError('not_found', `grant ${id}`, null, 404);
    if (this.grants[i].revokedAt) throw new ApiError('invalid_request', `grant ${id} is already revoked`, null, 400);
    this.grants[i] = { ...this.grants[i], revokedAt: '2025-01-01T11:00:00Z', revokedBy: 'web' };
    return wire(this.grants[i]);
  }

  /** Who the credential is: the local admin unless a test says otherwise. */
  principal: Principal = { name: 'me', role: 'admin', kind: 'local' };
  /** When set, `session` fails with it (every time, until cleared). */
  failSession: ApiError | null = null;
  /** When set, `session` waits for it before answering. */
  sessionGate: Promise<void> | null = null;

  async session() {
    this.calls.push({ method: 'session', args: [] });
    if (this.sessionGate) await this.sessionGate;
    if (this.failSession) throw this.failSession;
    return wire(this.principal);
  }

  /** What `stats` answers: the same figures for any period unless a function of `days`. */
  teamStats: TeamStats | ((days: number) => TeamStats) = makeTeamStats();
  /** When set, `stats` fails with it (every time, until cleared). */
  failStats: ApiError | null = null;
  /** When set, `stats` waits for it before answering. */
  statsGate: Promise<void> | null = null;

  /** Like the server: 1 to 90 days, else `invalid_request`. */
  async stats(days: number) {
    this.calls.push({ method: 'stats', args: [days] });
    if (this.statsGate) await this.statsGate;
    if (this.failStats) throw this.failStats;
    if (!Number.isInteger(days) || days < 1 || days > 90) throw new ApiError('invalid_request', `days must be 1 to 90, not ${days}`, null, 400);
    return wire(typeof this.teamStats === 'function' ? this.teamStats(days) : this.teamStats);
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

/** A deep copy as it would cross the wire, so the UI never shares objects with the fake's store. */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
