/**
 * `Backend` over Tauri IPC, for the desktop window: each method invokes one Rust command, and the
 * core's changes arrive as Tauri events (`queue`, `resync`, `open`).
 * Only `main.ts` imports this file; components receive the `Backend` from context and never import Tauri.
 */
import { invoke, type InvokeArgs } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import {
  ApiError,
  type AuditPage,
  type AuditVerification,
  type Backend,
  type BackendEvent,
  type DecisionHistory,
  type EngineChanges,
  type EngineTest,
  type EngineTestResult,
  type EngineView,
  type ExportFormat,
  type ErrorBody,
  type ExpirySettings,
  type Grant,
  type NewGrant,
  type CreatedGrant,
  type GrantPreview,
  type NewEngine,
  type NotificationSettings,
  type NotifyStatus,
  type Principal,
  type QueueCounts,
  type QueueFilter,
  type QueueItem,
  type PreviousCall,
  type Presence,
  type QueuePage,
  type ResolutionKind,
  type SavedFile,
  type Subscriber,
  type SyncAnswer,
  type QuorumSettings,
  queueEventFrom,
} from './backend';
import type { TeamStats } from '../team';
import { OPERATIONS } from './operations.gen';

type Operations = typeof OPERATIONS;

/** A command the desktop app registers: an operation the catalog marks `window`. */
export type TauriCommand = { [K in keyof Operations]: Operations[K]['window'] extends true ? K : never }[keyof Operations];

/** The commands the desktop app registers (the catalog's window operations, operations.gen.ts); nothing else is invoked. */
export const TAURI_COMMANDS: readonly TauriCommand[] = (Object.keys(OPERATIONS) as (keyof Operations)[]).filter(
  (name): name is TauriCommand => OPERATIONS[name].window,
);

/** Who the desktop window is: the local admin (see `session`). */
export const DESKTOP_PRINCIPAL: Readonly<Principal> = { name: '', role: 'admin', kind: 'local' };

/** The events the desktop app emits to the window. */
export const TAURI_EVENTS = ['queue', 'resync', 'open'] as const;

/** The filters and search of `queue_page` and `queue_counts`: the fields `WebBackend` sends as URL parameters. */
type FilterQuery = {
  engine?: string;
  source?: string;
  agent?: string;
  tool?: string;
  kind?: string;
  thread?: string;
  run?: string;
  q?: string;
};

/** The `query` of `queue_page`. */
type QueueQuery = FilterQuery & {
  tab: string;
  sort?: string;
  limit: number;
  cursor?: string;
};

function filterQuery(filter: QueueFilter): FilterQuery {
  const query: FilterQuery = {};
  if (filter.engine) query.engine = filter.engine;
  if (filter.source) query.source = filter.source;
  if (filter.agent) query.agent = filter.agent;
  if (filter.tool) query.tool = filter.tool;
  if (filter.kind) query.kind = filter.kind;
  if (filter.thread) query.thread = filter.thread;
  if (filter.run) query.run = filter.run;
  if (filter.q?.trim()) query.q = filter.q.trim();
  return query;
}

export class TauriBackend implements Backend {
  listQueue(filter: QueueFilter = {}): Promise<QueuePage> {
    const query: QueueQuery = { ...filterQuery(filter), tab: filter.tab ?? 'pending', limit: filter.limit ?? 50 };
    if (filter.sort === 'oldest') query.sort = 'oldest';
    if (filter.cursor) query.cursor = filter.cursor;
    return call('queue_page', { query });
  }

  queueCounts(filter: QueueFilter = {}): Promise<QueueCounts> {
    return call('queue_counts', { query: filterQuery(filter) });
  }

  getItem(id: string): Promise<QueueItem> {
    return call('queue_item', { id });
  }

  previousCall(id: string): Promise<PreviousCall> {
    return call('previous_call', { id });
  }

  viewing(id: string): Promise<Presence> {
    return call('viewing', { id });
  }

  async stopViewing(id: string): Promise<void> {
    await call<null>('stop_viewing', { id });
  }

  approve(id: string, fingerprint: string): Promise<QueueItem> {
    return call('approve', { id, fingerprint });
  }

  decline(id: string, fingerprint: string, reason?: string): Promise<QueueItem> {
    const args: { id: string; fingerprint: string; reason?: string } = { id, fingerprint };
    if (reason !== undefined && reason !== '') args.reason = reason;
    return call('decline', args);
  }

  resume(id: string, fingerprint: string, data: unknown): Promise<QueueItem> {
    return call('resume', { id, fingerprint, data });
  }

  approveEdited(id: string, fingerprint: string, args: unknown): Promise<QueueItem> {
    return call('approve_edited', { id, fingerprint, args });
  }

  resolve(id: string, resolution: ResolutionKind, fingerprint: string, result?: unknown): Promise<QueueItem> {
    const args: { id: string; resolution: ResolutionKind; fingerprint: string; result?: unknown } = { id, resolution, fingerprint };
    if (result !== undefined) args.result = result;
    return call('resolve', args);
  }

  listAudit(opts: { limit?: number; cursor?: string | null } = {}): Promise<AuditPage> {
    const query: { limit: number; cursor?: string } = { limit: opts.limit ?? 50 };
    if (opts.cursor) query.cursor = opts.cursor;
    return call('audit_page', { query });
  }

  verifyAudit(): Promise<AuditVerification> {
    return call('verify_audit');
  }

  decisionHistory(opts: { limit?: number; cursor?: string | null } = {}): Promise<DecisionHistory> {
    const query: { limit: number; cursor?: string } = { limit: opts.limit ?? 50 };
    if (opts.cursor) query.cursor = opts.cursor;
    return call('decision_history', { query });
  }

  /** The whole export through IPC (the window has no HTTP of its own); the caller saves it. */
  exportAudit(format: ExportFormat): Promise<string> {
    return call('export_audit', { format });
  }

  /** The window's export: saved by the app in the Downloads folder (a download inside WebKitGTK goes nowhere reliable). */
  saveAuditExport(format: ExportFormat): Promise<SavedFile> {
    return call('save_audit_export', { format });
  }

  /** The app's notifications and tray follow the window's language choice. */
  setLanguage(choice: 'system' | 'en' | 'ja'): Promise<void> {
    return call('set_language', { language: choice });
  }

  listEngines(): Promise<EngineView[]> {
    return call('engines');
  }

  addEngine(engine: NewEngine): Promise<EngineView> {
    return call('add_engine', { engine });
  }

  editEngine(name: string, changes: EngineChanges): Promise<EngineView> {
    return call('edit_engine', { name, changes });
  }

  async removeEngine(name: string): Promise<void> {
    await call<null>('remove_engine', { name });
  }

  testEngine(test: EngineTest): Promise<EngineTestResult> {
    return call('test_engine', { test });
  }

  syncEngine(name: string): Promise<SyncAnswer> {
    return call('sync_engine', { name });
  }

  engineAgents(name: string): Promise<unknown> {
    return call('engine_agents', { name });
  }

  notificationStatus(): Promise<NotifyStatus> {
    return call('notification_status');
  }

  notificationSettings(): Promise<NotificationSettings> {
    return call('notification_settings');
  }

  saveNotificationSettings(settings: NotificationSettings): Promise<NotificationSettings> {
    return call('save_notification_settings', { settings });
  }

  expirySettings(): Promise<ExpirySettings> {
    return call('expiry_settings');
  }

  saveExpirySettings(settings: ExpirySettings): Promise<ExpirySettings> {
    return call('save_expiry_settings', { settings });
  }

  quorumSettings(): Promise<QuorumSettings> {
    return call('quorum_settings');
  }

  saveQuorumSettings(settings: QuorumSettings): Promise<QuorumSettings> {
    return call('save_quorum_settings', { settings });
  }

  snooze(id: string, secs: number): Promise<QueueItem> {
    return call('snooze', { id, secs });
  }

  listGrants(): Promise<Grant[]> {
    return call('grants');
  }

  createGrant(grant: NewGrant): Promise<CreatedGrant> {
    return call('create_grant', { grant });
  }

  previewGrant(grant: NewGrant): Promise<GrantPreview> {
    return call('preview_grant', { grant });
  }

  revokeGrant(id: string): Promise<Grant> {
    return call('revoke_grant', { id });
  }

  /**
   * The desktop window is always the local admin. The `session` command adds the OS user's name,
   * which tells the window its own approvals of a call under a quorum (the two-person rule); should
   * it fail, the window is the local admin all the same, with an empty name.
   */
  async session(): Promise<Principal> {
    try {
      const me = await call<Principal>('session');
      return { ...DESKTOP_PRINCIPAL, name: typeof me?.name === 'string' ? me.name : '' };
    } catch {
      return { ...DESKTOP_PRINCIPAL };
    }
  }

  stats(days: number): Promise<TeamStats> {
    return call('stats', { days });
  }

  autostart(): Promise<boolean | null> {
    return call('autostart');
  }

  setAutostart(enabled: boolean): Promise<boolean> {
    return call('set_autostart', { enabled });
  }

  /**
   * Listens to the app's events. There is no connection to lose: `open` is reported once, when all
   * listeners are attached (the consumer reloads then, covering anything emitted before), or
   * `stopped` if attaching failed. Stopping before the listeners are attached detaches them as
   * soon as they are; no event is delivered after stopping either way.
   */
  subscribe(sub: Subscriber): () => void {
    let stopped = false;
    const unlisteners: UnlistenFn[] = [];
    const deliver = (ev: BackendEvent | null) => {
      if (!stopped && ev) sub.onEvent(ev);
    };
    const handlers: Record<(typeof TAURI_EVENTS)[number], (payload: unknown) => void> = {
      queue: (payload) => deliver(queueEventFrom(payload)),
      resync: () => deliver({ kind: 'resync' }),
      open: (payload) => deliver(openEventFrom(payload)),
    };

    sub.onStatus?.({ state: 'connecting' });
    void Promise.allSettled(TAURI_EVENTS.map((name) => listen<unknown>(name, (e) => handlers[name](e.payload)))).then((results) => {
      let failure: unknown = null;
      for (const r of results) {
        if (r.status === 'fulfilled') unlisteners.push(r.value);
        else failure ??= r.reason;
      }
      if (stopped || failure !== null) detach(unlisteners);
      if (stopped) return;
      if (failure !== null) {
        stopped = true;
        const err = toApiError(failure);
        sub.onStatus?.({ state: 'stopped', error: new ApiError(err.code, `Cannot listen to the app's events (${err.message}).`, err.details) });
        return;
      }
      sub.onStatus?.({ state: 'open' });
    });

    return () => {
      if (stopped) return;
      stopped = true;
      detach(unlisteners);
    };
  }
}

/** Invokes one command; a rejection always becomes an `ApiError`. */
async function call<T>(cmd: TauriCommand, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw toApiError(e);
  }
}

/**
 * What a rejected `invoke` carries, as an `ApiError` (no HTTP status): the app's `{code, message,
 * details?}` as is; anything else (Tauri's own string errors such as an unknown command or bad
 * arguments, a thrown `Error`) is `internal`.
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e && typeof e === 'object' && !(e instanceof Error)) {
    const body = e as { [K in keyof ErrorBody]?: unknown };
    if (typeof body.code === 'string' && body.code !== '') {
      return new ApiError(body.code, typeof body.message === 'string' ? body.message : '', body.details);
    }
  }
  if (e instanceof Error) return new ApiError('internal', e.message);
  if (typeof e === 'string') return new ApiError('internal', e);
  let text: string;
  try {
    text = JSON.stringify(e) ?? String(e);
  } catch {
    text = String(e);
  }
  return new ApiError('internal', text);
}

/** An `open` payload `{item, reason}` (untrusted) as a `BackendEvent`; fields that are not strings count as `null`. */
export function openEventFrom(payload: unknown): BackendEvent | null {
  if (!payload || typeof payload !== 'object') return null;
  const { item, reason } = payload as { item?: unknown; reason?: unknown };
  return {
    kind: 'open',
    item: typeof item === 'string' && item !== '' ? item : null,
    reason: typeof reason === 'string' && reason.trim() !== '' ? reason : null,
  };
}

function detach(unlisteners: UnlistenFn[]): void {
  for (const un of unlisteners.splice(0)) {
    // Unlistening is itself an IPC call; a failure leaves a listener whose handler is muted anyway.
    void Promise.resolve()
      .then(un)
      .catch(() => {});
  }
}
