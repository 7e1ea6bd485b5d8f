/**
 * The operations the core declares as one request and one answer (`declared` in operations.gen.ts),
 * typed from the server's OpenAPI document (api.gen.ts, by operation name), and the `Backend`
 * methods over them, written once for both transports: `WebBackend` and `TauriBackend` each give
 * only `run` (how one operation travels: HTTP at its route, or the window's command), and what is
 * theirs alone (event streams, exports, the window's own commands).
 */
import type { operations } from './api.gen';
import { OPERATIONS } from './operations.gen';
import type {
  AuditPage,
  AuditQuery,
  ChannelTest,
  SourceSeen,
  AuditVerification,
  CallReach,
  CallReason,
  Backend,
  ChannelSecret,
  CreatedGrant,
  Credential,
  Device,
  DecisionHistory,
  EngineChanges,
  EngineKind,
  EngineTest,
  EngineTestResult,
  EngineView,
  ExpirySettings,
  Grant,
  GrantPreview,
  MadeToken,
  NewEngine,
  NewGrant,
  NotificationSettings,
  NotifyStatus,
  PairingRequest,
  PairingStarted,
  PolicyView,
  ShadowReport,
  Presence,
  PreviousCall,
  Principal,
  QueueCounts,
  QueueFilter,
  QueueItem,
  QueuePage,
  QuorumSettings,
  ReachSettings,
  SavedReach,
  ReachStats,
  ResolutionKind,
  RemoteSettings,
  RemoteView,
  RemovedChannelSecret,
  RevokedDevice,
  RevokedToken,
  SyncAnswer,
  TeamStats,
  TokenRequest,
} from './backend';

type Catalog = typeof OPERATIONS;

/** An operation the core declares as a request and an answer. */
export type Declared = { [K in keyof Catalog]: Catalog[K]['declared'] extends true ? K : never }[keyof Catalog] & keyof operations;

type Doc<K extends Declared> = operations[K];
type Json<T> = T extends { content: { 'application/json': infer J } } ? J : undefined;

/** Its path parameters (`{id}`, `{name}`). */
export type PathOf<K extends Declared> = Doc<K> extends { parameters: { path: infer P } } ? P : Record<string, never>;
/** Its input: a GET's query parameters, else its JSON body. */
export type InputOf<K extends Declared> = Catalog[K]['input'] extends 'query'
  ? NonNullable<Doc<K>['parameters']['query']>
  : Catalog[K]['input'] extends 'body'
    ? Doc<K> extends { requestBody: { content: { 'application/json': infer B } } }
      ? B
      : never
    : undefined;
/** What it answers on success (`undefined` for 204). */
export type AnswerOf<K extends Declared> = Doc<K>['responses'] extends infer R
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : undefined
  : never;

/** One call of operation `K`: its path parameters and its input, each left out when it has none. */
export type Request<K extends Declared> = { path?: PathOf<K>; input?: InputOf<K> };

/** The filters and search of `filter` (the tab, sort and paging are the caller's), without empty ones. */
function filters(filter: QueueFilter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['engine', 'source', 'agent', 'tool', 'kind', 'thread', 'run'] as const) {
    const value = filter[key];
    if (value) out[key] = value;
  }
  if (filter.q?.trim()) out.q = filter.q.trim();
  return out;
}

/** A page of the audit log or of the decision history, with its filters (empty ones left out). */
function page(opts: { limit?: number; cursor?: string | null; filter?: AuditQuery }): { limit: number; cursor?: string } & AuditQuery {
  const query: { limit: number; cursor?: string } & AuditQuery = { limit: opts.limit ?? 50 };
  if (opts.cursor) query.cursor = opts.cursor;
  const f = opts.filter ?? {};
  if (f.action) query.action = f.action;
  if (f.agent) query.agent = f.agent;
  if (f.source) query.source = f.source;
  if (f.from) query.from = f.from;
  if (f.until) query.until = f.until;
  return query;
}

/**
 * A settings document as sent: with `confirmWidening: true` when its author confirmed a change that
 * widens what runs without an operator (else the server refuses one: `widening_unconfirmed`).
 */
function confirming<T extends object>(settings: T, confirmWidening: boolean): T & { confirmWidening?: boolean } {
  return confirmWidening ? { ...settings, confirmWidening: true } : settings;
}

/** The `Backend` methods of the declared operations, over one transport's `run`. */
export abstract class DeclaredBackend implements Pick<Backend, Exclude<keyof Backend, Own>> {
  /** Calls operation `name` with its path parameters and input; a failure is an `ApiError`. */
  abstract run<K extends Declared>(name: K, request?: Request<K>): Promise<AnswerOf<K>>;

  listQueue(filter: QueueFilter = {}): Promise<QueuePage> {
    const input: Record<string, string | number> = { ...filters(filter), tab: filter.tab ?? 'pending' };
    if (filter.sort === 'oldest') input.sort = 'oldest';
    input.limit = filter.limit ?? 50;
    if (filter.cursor) input.cursor = filter.cursor;
    return this.run('queue_page', { input: input as InputOf<'queue_page'> });
  }

  queueCounts(filter: QueueFilter = {}): Promise<QueueCounts> {
    return this.run('queue_counts', { input: filters(filter) as InputOf<'queue_counts'> });
  }

  getItem(id: string): Promise<QueueItem> {
    return this.run('queue_item', { path: { id } });
  }

  previousCall(id: string): Promise<PreviousCall> {
    return this.run('previous_call', { path: { id } });
  }

  callReason(id: string): Promise<CallReason> {
    return this.run('call_reason', { path: { id } });
  }

  viewing(id: string): Promise<Presence> {
    return this.run('viewing', { path: { id } });
  }

  async stopViewing(id: string): Promise<void> {
    await this.run('stop_viewing', { path: { id } });
  }

  approve(id: string, fingerprint: string): Promise<QueueItem> {
    return this.run('approve', { path: { id }, input: { fingerprint } });
  }

  decline(id: string, fingerprint: string, reason?: string): Promise<QueueItem> {
    const input: InputOf<'decline'> = { fingerprint };
    if (reason !== undefined && reason !== '') input.reason = reason;
    return this.run('decline', { path: { id }, input });
  }

  resume(id: string, fingerprint: string, data: unknown): Promise<QueueItem> {
    return this.run('resume', { path: { id }, input: { fingerprint, data } });
  }

  approveEdited(id: string, fingerprint: string, args: unknown): Promise<QueueItem> {
    return this.run('approve_edited', { path: { id }, input: { fingerprint, args } });
  }

  resolve(id: string, resolution: ResolutionKind, fingerprint: string, result?: unknown): Promise<QueueItem> {
    const input: InputOf<'resolve'> = { resolution, fingerprint };
    if (result !== undefined) input.result = result;
    return this.run('resolve', { path: { id }, input });
  }

  listAudit(opts: { limit?: number; cursor?: string | null; filter?: AuditQuery } = {}): Promise<AuditPage> {
    return this.run('audit_page', { input: page(opts) });
  }

  verifyAudit(): Promise<AuditVerification> {
    return this.run('verify_audit');
  }

  decisionHistory(opts: { limit?: number; cursor?: string | null; filter?: AuditQuery } = {}): Promise<DecisionHistory> {
    return this.run('decision_history', { input: page(opts) });
  }

  listEngines(): Promise<EngineView[]> {
    return this.run('engines');
  }

  sources(): Promise<SourceSeen[]> {
    return this.run('sources');
  }

  addEngine(engine: NewEngine): Promise<EngineView> {
    return this.run('add_engine', { input: engine });
  }

  editEngine(name: string, changes: EngineChanges): Promise<EngineView> {
    return this.run('edit_engine', { path: { name }, input: changes });
  }

  async removeEngine(name: string): Promise<void> {
    await this.run('remove_engine', { path: { name } });
  }

  engineKinds(): Promise<EngineKind[]> {
    return this.run('engine_kinds');
  }

  testEngine(test: EngineTest): Promise<EngineTestResult> {
    return this.run('test_engine', { input: test });
  }

  syncEngine(name: string): Promise<SyncAnswer> {
    return this.run('sync_engine', { path: { name } });
  }

  engineAgents(name: string): Promise<unknown> {
    return this.run('engine_agents', { path: { name } });
  }

  notificationStatus(): Promise<NotifyStatus> {
    return this.run('notification_status');
  }

  notificationSettings(): Promise<NotificationSettings> {
    return this.run('notification_settings');
  }

  saveNotificationSettings(settings: NotificationSettings, confirmWidening = false): Promise<NotificationSettings> {
    return this.run('save_notification_settings', { input: confirming(settings, confirmWidening) });
  }

  expirySettings(): Promise<ExpirySettings> {
    return this.run('expiry_settings');
  }

  saveExpirySettings(settings: ExpirySettings): Promise<ExpirySettings> {
    return this.run('save_expiry_settings', { input: settings });
  }

  quorumSettings(): Promise<QuorumSettings> {
    return this.run('quorum_settings');
  }

  policyView(): Promise<PolicyView> {
    return this.run('policy_view');
  }

  shadowReport(): Promise<ShadowReport> {
    return this.run('shadow_report');
  }

  saveQuorumSettings(settings: QuorumSettings, confirmWidening = false): Promise<QuorumSettings> {
    return this.run('save_quorum_settings', { input: confirming(settings, confirmWidening) });
  }

  snooze(id: string, secs: number): Promise<QueueItem> {
    return this.run('snooze', { path: { id }, input: { secs } });
  }

  listGrants(): Promise<Grant[]> {
    return this.run('grants');
  }

  createGrant(grant: NewGrant): Promise<CreatedGrant> {
    return this.run('create_grant', { input: grant });
  }

  previewGrant(grant: NewGrant): Promise<GrantPreview> {
    return this.run('preview_grant', { input: grant });
  }

  revokeGrant(id: string): Promise<Grant> {
    return this.run('revoke_grant', { path: { id } });
  }

  listTokens(): Promise<Credential[]> {
    return this.run('tokens');
  }

  addToken(request: TokenRequest): Promise<MadeToken> {
    return this.run('add_token', { input: request });
  }

  revokeToken(name: string): Promise<RevokedToken> {
    return this.run('revoke_token', { path: { name } });
  }

  listDevices(): Promise<Device[]> {
    return this.run('list_devices');
  }

  startPairing(request: PairingRequest): Promise<PairingStarted> {
    return this.run('start_pairing', { input: request });
  }

  renameDevice(name: string, newName: string): Promise<Device> {
    return this.run('rename_device', { path: { name }, input: { name: newName } });
  }

  revokeDevice(name: string): Promise<RevokedDevice> {
    return this.run('revoke_device', { path: { name } });
  }

  remoteSettings(): Promise<RemoteView> {
    return this.run('remote_settings');
  }

  saveRemoteSettings(settings: RemoteSettings): Promise<RemoteView> {
    return this.run('save_remote_settings', { input: settings });
  }

  reachSettings(): Promise<ReachSettings> {
    return this.run('reach_settings');
  }

  saveReachSettings(settings: ReachSettings): Promise<SavedReach> {
    return this.run('save_reach_settings', { input: settings });
  }

  testChannel(name: string): Promise<ChannelTest> {
    return this.run('test_channel', { path: { name } });
  }

  channelSecrets(): Promise<ChannelSecret[]> {
    return this.run('channel_secrets');
  }

  setChannelSecret(name: string, value: string): Promise<ChannelSecret> {
    return this.run('set_channel_secret', { path: { name }, input: { value } });
  }

  removeChannelSecret(name: string): Promise<RemovedChannelSecret> {
    return this.run('remove_channel_secret', { path: { name } });
  }

  claimCall(id: string): Promise<CallReach> {
    return this.run('claim_call', { path: { id } });
  }

  callReach(id: string): Promise<CallReach> {
    return this.run('call_reach', { path: { id } });
  }

  reachStats(days: number): Promise<ReachStats> {
    return this.run('reach_stats', { input: { days } });
  }

  session(): Promise<Principal> {
    return this.run('session');
  }

  stats(days: number): Promise<TeamStats> {
    return this.run('stats', { input: { days } });
  }
}

/** What each transport writes itself. */
type Own = 'subscribe' | 'exportAudit' | 'saveAuditExport' | 'setLanguage' | 'autostart' | 'setAutostart';

/**
 * The window's arguments of operation `name`: its path parameters, and its input beside them or
 * under its `windowKey` (as the core reads them, `app::operation::call_window`).
 */
export function windowArgs<K extends Declared>(name: K, request: Request<K> = {}): Record<string, unknown> {
  const key: string | null = OPERATIONS[name].windowKey;
  const path = (request.path ?? {}) as Record<string, unknown>;
  if (request.input === undefined) return { ...path };
  return key === null ? { ...path, ...(request.input as Record<string, unknown>) } : { ...path, [key]: request.input };
}

/**
 * The method and URL of operation `name` (from the catalog, operations.gen.ts): each `{param}` of its
 * path filled from `params` (URI-encoded), then `?` and the query when its input is a query (empty
 * values left out).
 */
export function httpRoute<K extends Declared>(name: K, request: Request<K> = {}): { method: string; url: string; body?: unknown } {
  const op = OPERATIONS[name];
  if (op.method === null || op.path === null) throw new Error(`operation ${name} has no HTTP route`);
  const params = (request.path ?? {}) as Record<string, string>;
  const url = op.path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`operation ${name} needs its ${key}`);
    return encodeURIComponent(value);
  });
  if (op.input === 'query') {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries((request.input ?? {}) as Record<string, unknown>)) {
      if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    }
    return { method: op.method, url: `${url}?${q}` };
  }
  return op.input === 'body' ? { method: op.method, url, body: request.input } : { method: op.method, url };
}
