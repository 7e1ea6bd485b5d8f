/**
 * An in-memory `Backend` for unit tests: records calls, answers from a map of items and engines.
 * Built in layers: `FakeQueue` (fake-queue.ts: the queue, decisions, session) ← `FakeSetup`
 * (fake-setup.ts: engines and settings) ← `FakeReach` (fake-reach.ts: channels, claims, messages,
 * their figures) ← `FakeBackend` (the audit log, grants, devices, team figures).
 */
import {
  ApiError,
  type AgentRulePreview,
  type AuditEntry,
  type AuditQuery,
  type AuditVerification,
  type CallOrigin,
  type GrantName,
  type Backend,
  type Credential,
  type DecisionRecord,
  type Device,
  type ExportFormat,
  type Grant,
  type NewGrant,
  type PairingRequest,
  type RemoteSettings,
  type RuleScope,
  type RemoteView,
  type QueueItem,
  type TokenRequest,
} from '../backend/backend';
import type { AnswerOf, Declared, Request } from '../backend/operations';
import type { TeamStats } from '../team';
import { wire } from './fake-queue';
import { FakeReach } from './fake-reach';
import { makeGrant, makeTeamStats } from './fixtures';
import { checkGrantConditions, commandsBound, holds, matchesEverything } from './server-rules';

export { emptyReachStats, makeReachMessage } from './fake-reach';
export { decision, defaultNotificationSettings, makeDevice, fingerprintOf, makeAwaitingDecision, makeEngine, makeGrant, makeInterrupted, makeItem, makeNotifyStatus, makeTeamStats, emptyTeamStats, tabOf } from './fixtures';

export class FakeBackend extends FakeReach implements Backend {
  /** Unset, like the web backend's; a test sets it to act as the desktop app, which saves exports itself. */
  saveAuditExport?: Backend['saveAuditExport'];
  /** Unset, like the web backend's; a test sets it to act as the desktop app. */
  setLanguage?: Backend['setLanguage'];
  /** The audit log, oldest first. */
  audit: AuditEntry[] = [];
  /** What `verifyAudit` answers. */
  verification: AuditVerification = { ok: true, checked: 0, firstBad: null };
  /** What `decisionHistory` pages through, newest first. */
  history: DecisionRecord[] = [];
  /** The call each queue entry of the log is about (a page answers those it names). */
  auditCalls: Record<string, CallOrigin> = {};
  /** What each grant the log names allows (a page answers those it names). */
  auditGrants: Record<string, GrantName> = {};
  /** When set, `exportAudit` fails with it. */
  failExport: ApiError | null = null;
  /** The grants, newest first. */
  grants: Grant[] = [];
  /** When set, the next `createGrant` / `revokeGrant` / `snooze` fails with it. */
  failGrant: ApiError | null = null;

  /** What `run` answers, by operation; one not set here fails as the server would not. */
  runAnswers: Partial<{ [K in Declared]: AnswerOf<K> }> = {};

  async run<K extends Declared>(name: K, request?: Request<K>): Promise<AnswerOf<K>> {
    this.calls.push({ method: 'run', args: [name, request] });
    if (!(name in this.runAnswers)) throw new ApiError('internal', `the fake backend does not answer ${name}`);
    return structuredClone(this.runAnswers[name] as AnswerOf<K>);
  }

  /** Like the server: the filter's action (one, or a family), agent, source and instants. */
  private kept(e: AuditEntry, f: AuditQuery | undefined): boolean {
    if (!f) return true;
    const call = e.queueItemId ? this.auditCalls[e.queueItemId] : undefined;
    if (f.action && (f.action.includes('.') ? e.action !== f.action : !e.action.startsWith(`${f.action}.`))) return false;
    if (f.agent && call?.agentId !== f.agent) return false;
    if (f.source && call?.source !== f.source) return false;
    if (f.from && e.at < f.from) return false;
    if (f.until && e.at >= f.until) return false;
    return true;
  }

  /** The calls and grants the entries name. */
  private named(entries: AuditEntry[]) {
    const calls: Record<string, CallOrigin> = {};
    const grants: Record<string, GrantName> = {};
    for (const e of entries) {
      if (e.queueItemId && this.auditCalls[e.queueItemId]) calls[e.queueItemId] = this.auditCalls[e.queueItemId];
      const g = /^grant (\S+)/.exec(e.actor)?.[1];
      if (g && this.auditGrants[g]) grants[g] = this.auditGrants[g];
    }
    return { calls: wire(calls), grants: wire(grants) };
  }

  async listAudit(opts: { limit?: number; cursor?: string | null; filter?: AuditQuery } = {}) {
    this.calls.push({ method: 'listAudit', args: [opts] });
    const entries = [...this.audit].reverse().filter((e) => this.kept(e, opts.filter));
    const from = Number(opts.cursor ?? 0);
    const end = from + (opts.limit ?? 50);
    const page = entries.slice(from, end);
    return { entries: page, nextCursor: end < entries.length ? String(end) : null, ...this.named(page) };
  }

  async verifyAudit() {
    this.calls.push({ method: 'verifyAudit', args: [] });
    return { ...this.verification };
  }

  async decisionHistory(opts: { limit?: number; cursor?: string | null; filter?: AuditQuery } = {}) {
    this.calls.push({ method: 'decisionHistory', args: [opts] });
    const kept = this.history.filter((r) => this.kept(r.decision, opts.filter));
    const from = Number(opts.cursor ?? 0);
    const end = from + (opts.limit ?? 50);
    const items = kept.slice(from, end);
    return { items, nextCursor: end < kept.length ? String(end) : null, ...this.named(items.map((r) => r.decision)) };
  }

  /** Like the server's JSON Lines export (a CSV export here is only a header and the lines' count). */
  async exportAudit(format: ExportFormat) {
    this.calls.push({ method: 'exportAudit', args: [format] });
    if (this.failExport) throw this.failExport;
    if (format === 'jsonl') return this.audit.map((e) => JSON.stringify(e) + '\n').join('');
    return `seq,at,actor,action\r\n${this.audit.map((e) => `${e.seq},${e.at},${e.actor},${e.action}\r\n`).join('')}`;
  }

  async listGrants() {
    this.calls.push({ method: 'listGrants', args: [] });
    return wire(this.grants);
  }

  /** Like the server: refuses a high-risk call (its `highRisk`, or its tool in `highRiskTools` of the notification settings), suspend calls and a changed call. */
  async createGrant(grant: NewGrant) {
    this.engineCall('createGrant', [wire(grant)]);
    const item = this.items.get(grant.fromItem);
    if (!item) throw new ApiError('not_found', `no item ${grant.fromItem}`, null, 404);
    if (item.highRisk || (this.notifySettings.highRiskTools ?? []).includes(item.toolName)) throw new ApiError('high_risk_tool', `this call of ${item.toolName} is high risk`, null, 409);
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
      shadow: grant.shadow === true,
    });
    // A shadow grant approves nothing.
    const approvesWaiting = grant.applyToWaiting === false || grant.shadow === true ? 0 : this.waitingCovered(made).length;
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
        g.conditions.every((c) => !matchesEverything(c) && holds(c, i.args, g.toolName)) &&
        commandsBound(g.toolName, i.args, g.conditions),
    );
  }

  /** When set, `previewGrant` fails with it (every time, until cleared). */
  failPreview: ApiError | null = null;
  /** When set, `previewGrant` waits for it before answering. */
  previewGate: Promise<void> | null = null;
  /** When set, the preview's `agentRule` for the scope asked (the server builds it for a coding agent's call). */
  agentRule: ((scope: RuleScope) => AgentRulePreview) | null = null;

  /** Like the server: what `createGrant` would approve at once if applied to the waiting calls (whatever `applyToWaiting` says). */
  async previewGrant(grant: NewGrant) {
    this.calls.push({ method: 'previewGrant', args: [wire(grant)] });
    if (this.previewGate) await this.previewGate;
    if (this.failPreview) throw this.failPreview;
    const item = this.items.get(grant.fromItem);
    if (!item) throw new ApiError('not_found', `no item ${grant.fromItem}`, null, 404);
    if (item.highRisk || (this.notifySettings.highRiskTools ?? []).includes(item.toolName)) throw new ApiError('high_risk_tool', `this call of ${item.toolName} is high risk`, null, 409);
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
    const agentRule = this.agentRule ? { agentRule: this.agentRule(grant.ruleScope ?? 'session') } : {};
    return wire({ approvesWaiting: covered.length, includesFromItem: covered.some((i) => i.id === item.id), waiting, ...agentRule });
  }

  /** What revoking a grant answers it did about the rules it wrote back, by grant id. */
  revokeRemovals: Record<string, Grant['removals']> = {};

  async revokeGrant(id: string) {
    this.engineCall('revokeGrant', [id]);
    const i = this.grants.findIndex((g) => g.id === id);
    if (i < 0) throw new ApiError('not_found', `grant ${id}`, null, 404);
    if (this.grants[i].revokedAt) throw new ApiError('invalid_request', `grant ${id} is already revoked`, null, 400);
    this.grants[i] = { ...this.grants[i], revokedAt: '2025-01-01T11:00:00Z', revokedBy: 'web' };
    return wire({ ...this.grants[i], removals: this.revokeRemovals[id] });
  }

  /** The live credentials, by name. */
  credentials: Credential[] = [];
  /** When set, the next `addToken` / `revokeToken` fails with it. */
  failToken: ApiError | null = null;

  async listTokens() {
    this.calls.push({ method: 'listTokens', args: [] });
    return wire(this.credentials);
  }

  /** Like the server: a live credential's name is refused; the token is answered only here. */
  async addToken(request: TokenRequest) {
    this.calls.push({ method: 'addToken', args: [wire(request)] });
    if (this.failToken) throw this.takeFailure();
    if (this.credentials.some((c) => c.name === request.name)) {
      throw new ApiError('invalid_request', `a credential named "${request.name}" exists: revoke it first, or choose another name`, null, 400);
    }
    const credential: Credential = {
      name: request.name,
      role: request.role,
      createdAt: '2025-01-01T10:00:00Z',
      createdBy: 'local:you (web)',
      lastUsedAt: null,
      person: request.person ?? request.name,
      agents: request.agents ?? null,
      sources: request.sources ?? null,
    };
    this.credentials = [...this.credentials, credential].sort((a, b) => a.name.localeCompare(b.name));
    return wire({ credential, token: `ac_${String(this.credentials.length).padStart(64, '0')}` });
  }

  async revokeToken(name: string) {
    this.calls.push({ method: 'revokeToken', args: [name] });
    if (this.failToken) throw this.takeFailure();
    const c = this.credentials.find((c) => c.name === name);
    if (!c) throw new ApiError('not_found', `credential "${name}" not found`, null, 404);
    this.credentials = this.credentials.filter((x) => x !== c);
    return wire({ name, role: c.role });
  }

  private takeFailure(): ApiError {
    const e = this.failToken!;
    this.failToken = null;
    return e;
  }

  /** The live devices, by name. */
  devices: Device[] = [];
  /** When set, the next `startPairing` / `renameDevice` / `revokeDevice` fails with it. */
  failDevice: ApiError | null = null;
  /** Whether the remote listener runs (`serve --listen`); when not, `startPairing` is refused as by the server. */
  listening = true;
  /** The QR code `startPairing` answers (SVG text, untrusted: shown only as an image). */
  pairingQr = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="2" height="2"/></svg>';

  /** The remote listener's settings and whether it runs (`remoteSettings`). */
  remote: RemoteView = { settings: { listen: null, publicName: null }, running: null, pin: null };

  async remoteSettings() {
    this.calls.push({ method: 'remoteSettings', args: [] });
    return wire(this.remote);
  }

  /** Like the server: `listen` must be ADDR:PORT. */
  async saveRemoteSettings(settings: RemoteSettings) {
    this.calls.push({ method: 'saveRemoteSettings', args: [wire(settings)] });
    if (settings.listen && !/^[^:]+:\d+$/.test(settings.listen)) throw new ApiError('invalid_request', `"${settings.listen}" is not ADDR:PORT (e.g. 0.0.0.0:8443)`);
    this.remote = { ...this.remote, settings: wire(settings) };
    return wire(this.remote);
  }

  async listDevices() {
    this.calls.push({ method: 'listDevices', args: [] });
    return wire(this.devices);
  }

  /** Like the server: refused while the listener is off, and for a live device's name; the code is answered only here. */
  async startPairing(request: PairingRequest) {
    this.calls.push({ method: 'startPairing', args: [wire(request)] });
    this.takeDeviceFailure();
    if (!this.listening) {
      throw new ApiError('invalid_request', 'the remote listener is off: start it with `approval-console serve --listen ADDR:PORT --public-name NAME`, then pair', null, 400);
    }
    const person = request.person ?? this.principal.name;
    let name = request.name?.trim();
    if (!name) for (let n = 1; !name || this.devices.some((d) => d.name === name); n++) name = `${person}-phone-${n}`;
    this.deviceNameFree(name);
    const code = 'ABCDE-FGHJK';
    const url = `https://console.example:8443/#pair=${code}`;
    return wire({ name, person, code, url, pin: 'q1w2e3r4t5y6u7i8o9p0AbCdEfGhIjKlMnOpQrStUvW=', qrSvg: this.pairingQr, expiresAt: '2025-01-01T10:10:00Z' });
  }

  async renameDevice(name: string, newName: string) {
    this.calls.push({ method: 'renameDevice', args: [name, newName] });
    this.takeDeviceFailure();
    const i = this.devices.findIndex((d) => d.name === name);
    if (i < 0) throw new ApiError('not_found', `device "${name}" not found`, null, 404);
    if (newName !== name) this.deviceNameFree(newName);
    this.devices[i] = { ...this.devices[i], name: newName };
    this.devices.sort((a, b) => a.name.localeCompare(b.name));
    return wire(this.devices.find((d) => d.name === newName)!);
  }

  async revokeDevice(name: string) {
    this.calls.push({ method: 'revokeDevice', args: [name] });
    this.takeDeviceFailure();
    const d = this.devices.find((d) => d.name === name);
    if (!d) throw new ApiError('not_found', `device "${name}" not found`, null, 404);
    this.devices = this.devices.filter((x) => x !== d);
    return wire({ name, sessionsEnded: d.sessions });
  }

  private deviceNameFree(name: string) {
    if (this.devices.some((d) => d.name === name)) {
      throw new ApiError('invalid_request', `a device is named "${name}" already: rename or revoke it, or choose another name`, null, 400);
    }
  }

  private takeDeviceFailure() {
    const e = this.failDevice;
    this.failDevice = null;
    if (e) throw e;
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
}
