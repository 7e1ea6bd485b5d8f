/**
 * `Backend` over the console's HTTP API (same origin) and its SSE stream.
 * Only `main.ts` imports this file; components receive the `Backend` from context.
 */
import {
  ApiError,
  type ApproveBody,
  type ApproveEditedBody,
  type AuditPage,
  type AuditVerification,
  type Backend,
  type BackendEvent,
  type DeclineBody,
  type DecisionHistory,
  type EngineChanges,
  type EngineTest,
  type EngineTestResult,
  type EngineView,
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
  type ExportFormat,
  type QueueCounts,
  type QueueFilter,
  type QueueItem,
  type PreviousCall,
  type Presence,
  type QueuePage,
  type ResolveBody,
  type ResolutionKind,
  type ResumeBody,
  type SnoozeBody,
  type Subscriber,
  type SyncAnswer,
  type QuorumSettings,
  queueEventFrom,
} from './backend';
import type { TeamStats } from '../team';
import { SseParser, type SseMessage } from './sse';
import { OPERATIONS } from './operations.gen';

export type WebBackendOptions = {
  /** Prefix for API URLs; `''` for same origin. */
  baseUrl?: string;
  /** Returns the bearer token at call time (it may be replaced while the app runs). */
  getToken: () => string | null;
  fetch?: typeof fetch;
  /** Reconnect backoff for the event stream. */
  minRetryMs?: number;
  maxRetryMs?: number;
};

export class WebBackend implements Backend {
  private readonly baseUrl: string;
  private readonly getToken: () => string | null;
  private readonly fetchFn: typeof fetch;
  private readonly minRetryMs: number;
  private readonly maxRetryMs: number;

  constructor(opts: WebBackendOptions) {
    this.baseUrl = opts.baseUrl ?? '';
    this.getToken = opts.getToken;
    // Bind: calling `window.fetch` detached from `window` throws "Illegal invocation".
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.minRetryMs = opts.minRetryMs ?? 1000;
    this.maxRetryMs = opts.maxRetryMs ?? 30000;
  }

  listQueue(filter: QueueFilter = {}): Promise<QueuePage> {
    const q = filterParams(filter);
    q.set('tab', filter.tab ?? 'pending');
    if (filter.sort === 'oldest') q.set('sort', 'oldest');
    q.set('limit', String(filter.limit ?? 50));
    if (filter.cursor) q.set('cursor', filter.cursor);
    return this.op('queue_page', {}, q);
  }

  queueCounts(filter: QueueFilter = {}): Promise<QueueCounts> {
    return this.op('queue_counts', {}, filterParams(filter));
  }

  getItem(id: string): Promise<QueueItem> {
    return this.op('queue_item', { id });
  }

  previousCall(id: string): Promise<PreviousCall> {
    return this.op('previous_call', { id });
  }

  viewing(id: string): Promise<Presence> {
    return this.op('viewing', { id });
  }

  async stopViewing(id: string): Promise<void> {
    await this.op<void>('stop_viewing', { id });
  }

  approve(id: string, fingerprint: string): Promise<QueueItem> {
    const body: ApproveBody = { fingerprint };
    return this.op('approve', { id }, undefined, body);
  }

  decline(id: string, fingerprint: string, reason?: string): Promise<QueueItem> {
    const body: DeclineBody = { fingerprint };
    if (reason !== undefined && reason !== '') body.reason = reason;
    return this.op('decline', { id }, undefined, body);
  }

  resume(id: string, fingerprint: string, data: unknown): Promise<QueueItem> {
    const body: ResumeBody = { fingerprint, data };
    return this.op('resume', { id }, undefined, body);
  }

  approveEdited(id: string, fingerprint: string, args: unknown): Promise<QueueItem> {
    const body: ApproveEditedBody = { fingerprint, args };
    return this.op('approve_edited', { id }, undefined, body);
  }

  resolve(id: string, resolution: ResolutionKind, fingerprint: string, result?: unknown): Promise<QueueItem> {
    const body: ResolveBody = { resolution, fingerprint };
    if (result !== undefined) body.result = result;
    return this.op('resolve', { id }, undefined, body);
  }

  listAudit(opts: { limit?: number; cursor?: string | null } = {}): Promise<AuditPage> {
    const q = new URLSearchParams();
    q.set('limit', String(opts.limit ?? 50));
    if (opts.cursor) q.set('cursor', opts.cursor);
    return this.op('audit_page', {}, q);
  }

  verifyAudit(): Promise<AuditVerification> {
    return this.op('verify_audit', {});
  }

  decisionHistory(opts: { limit?: number; cursor?: string | null } = {}): Promise<DecisionHistory> {
    const q = new URLSearchParams();
    q.set('limit', String(opts.limit ?? 50));
    if (opts.cursor) q.set('cursor', opts.cursor);
    return this.op('decision_history', {}, q);
  }

  async exportAudit(format: ExportFormat): Promise<string> {
    const res = await this.send(...route('export_audit', {}, new URLSearchParams({ format })), undefined, 'text/plain, */*');
    try {
      return await res.text();
    } catch (e) {
      throw new ApiError('network', `The export stopped before it ended (${errorText(e)}).`, null, res.status);
    }
  }

  listEngines(): Promise<EngineView[]> {
    return this.op('engines', {});
  }

  addEngine(engine: NewEngine): Promise<EngineView> {
    return this.op('add_engine', {}, undefined, engine);
  }

  editEngine(name: string, changes: EngineChanges): Promise<EngineView> {
    return this.op('edit_engine', { name }, undefined, changes);
  }

  async removeEngine(name: string): Promise<void> {
    await this.op<void>('remove_engine', { name });
  }

  testEngine(test: EngineTest): Promise<EngineTestResult> {
    return this.op('test_engine', {}, undefined, test);
  }

  syncEngine(name: string): Promise<SyncAnswer> {
    return this.op('sync_engine', { name });
  }

  engineAgents(name: string): Promise<unknown> {
    return this.op('engine_agents', { name });
  }

  notificationStatus(): Promise<NotifyStatus> {
    return this.op('notification_status', {});
  }

  notificationSettings(): Promise<NotificationSettings> {
    return this.op('notification_settings', {});
  }

  saveNotificationSettings(settings: NotificationSettings): Promise<NotificationSettings> {
    return this.op('save_notification_settings', {}, undefined, settings);
  }

  /** Only the desktop app can start at login: not available over HTTP. */
  expirySettings(): Promise<ExpirySettings> {
    return this.op('expiry_settings', {});
  }

  saveExpirySettings(settings: ExpirySettings): Promise<ExpirySettings> {
    return this.op('save_expiry_settings', {}, undefined, settings);
  }

  quorumSettings(): Promise<QuorumSettings> {
    return this.op('quorum_settings', {});
  }

  saveQuorumSettings(settings: QuorumSettings): Promise<QuorumSettings> {
    return this.op('save_quorum_settings', {}, undefined, settings);
  }

  snooze(id: string, secs: number): Promise<QueueItem> {
    const body: SnoozeBody = { secs };
    return this.op('snooze', { id }, undefined, body);
  }

  listGrants(): Promise<Grant[]> {
    return this.op('grants', {});
  }

  createGrant(grant: NewGrant): Promise<CreatedGrant> {
    return this.op('create_grant', {}, undefined, grant);
  }

  previewGrant(grant: NewGrant): Promise<GrantPreview> {
    return this.op('preview_grant', {}, undefined, grant);
  }

  revokeGrant(id: string): Promise<Grant> {
    return this.op('revoke_grant', { id });
  }

  session(): Promise<Principal> {
    return this.op('session', {});
  }

  stats(days: number): Promise<TeamStats> {
    return this.op('stats', {}, new URLSearchParams({ days: String(days) }));
  }

  async autostart(): Promise<boolean | null> {
    return null;
  }

  async setAutostart(_enabled: boolean): Promise<boolean> {
    throw new ApiError('invalid_request', 'only the desktop app can start at login');
  }

  subscribe(subscriber: Subscriber): () => void {
    const abort = new AbortController();
    void this.streamLoop(subscriber, abort.signal);
    return () => abort.abort();
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json', ...extra };
    const token = this.getToken();
    if (token) h.Authorization = `Bearer ${token}`;
    return h;
  }

  /** Sends a request; a failed one (no answer, or not 2xx) becomes an `ApiError`. */
  private async send(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchFn(this.baseUrl + path, {
        method,
        headers: this.headers({ Accept: accept, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }),
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch (e) {
      throw new ApiError('network', `The console server could not be reached (${errorText(e)}).`);
    }
    if (!res.ok) throw await errorFromResponse(res);
    return res;
  }

  /** Calls operation `name` of the catalog at its route, `params` filling its `{…}` parts. */
  private op<T>(name: Routed, params: Record<string, string>, query?: URLSearchParams, body?: unknown): Promise<T> {
    return this.request(...route(name, params, query), body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    if (res.status === 204) return undefined as T;
    try {
      return (await res.json()) as T;
    } catch (e) {
      throw new ApiError('bad_response', `The server sent a response that is not JSON (${errorText(e)}).`, null, res.status);
    }
  }

  /** Keeps one event stream open, reconnecting with exponential backoff until aborted. */
  private async streamLoop(sub: Subscriber, signal: AbortSignal): Promise<void> {
    let delay = this.minRetryMs;
    while (!signal.aborted) {
      sub.onStatus?.({ state: 'connecting' });
      let error: ApiError;
      try {
        const res = await this.fetchFn(this.baseUrl + route('events')[1], {
          headers: this.headers({ Accept: 'text/event-stream' }),
          cache: 'no-store',
          signal,
        });
        if (!res.ok) {
          error = await errorFromResponse(res);
          if (error.code === 'unauthorized') {
            // Retrying with the same token cannot help.
            sub.onStatus?.({ state: 'stopped', error });
            return;
          }
        } else if (!res.body) {
          error = new ApiError('bad_response', 'The event stream has no body.');
        } else {
          delay = this.minRetryMs;
          sub.onStatus?.({ state: 'open' });
          await readEvents(res.body, (m) => {
            const ev = toBackendEvent(m);
            if (ev) sub.onEvent(ev);
          });
          error = new ApiError('network', 'The event stream ended.');
        }
      } catch (e) {
        if (signal.aborted) return;
        error = new ApiError('network', `The event stream dropped (${errorText(e)}).`);
      }
      if (signal.aborted) return;
      sub.onStatus?.({ state: 'retrying', inMs: delay, error });
      await sleep(delay, signal);
      delay = Math.min(delay * 2, this.maxRetryMs);
    }
  }
}

type Operations = typeof OPERATIONS;

/** An operation of the catalog that has an HTTP route. */
export type Routed = { [K in keyof Operations]: Operations[K]['path'] extends string ? K : never }[keyof Operations];

/**
 * The method and path of operation `name` (from the catalog, operations.gen.ts): each `{param}` of its
 * path filled from `params` (URI-encoded), then `?` and `query` when one is given (even empty).
 */
export function route(name: Routed, params: Record<string, string> = {}, query?: URLSearchParams): [string, string] {
  const { method, path } = OPERATIONS[name];
  const filled = path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`operation ${name} needs its ${key}`);
    return encodeURIComponent(value);
  });
  return [method, query === undefined ? filled : `${filled}?${query}`];
}

/** The filters and search of `filter` as URL parameters (the tab, sort and paging are the caller's). */
function filterParams(filter: QueueFilter): URLSearchParams {
  const q = new URLSearchParams();
  if (filter.engine) q.set('engine', filter.engine);
  if (filter.source) q.set('source', filter.source);
  if (filter.agent) q.set('agent', filter.agent);
  if (filter.tool) q.set('tool', filter.tool);
  if (filter.kind) q.set('kind', filter.kind);
  if (filter.thread) q.set('thread', filter.thread);
  if (filter.run) q.set('run', filter.run);
  if (filter.q?.trim()) q.set('q', filter.q.trim());
  return q;
}

/** Reads a byte stream as SSE, calling `onMessage` for each complete event. */
export async function readEvents(body: ReadableStream<Uint8Array>, onMessage: (m: SseMessage) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const m of parser.push(decoder.decode(value, { stream: true }))) onMessage(m);
    }
    for (const m of parser.push(decoder.decode())) onMessage(m);
  } finally {
    reader.releaseLock();
  }
}

/** Maps one SSE message to a `BackendEvent`; unknown or malformed events are ignored. */
export function toBackendEvent(m: SseMessage): BackendEvent | null {
  if (m.event === 'resync') return { kind: 'resync' };
  if (m.event !== 'queue') return null;
  let data: unknown;
  try {
    data = JSON.parse(m.data);
  } catch {
    return null;
  }
  return queueEventFrom(data);
}

async function errorFromResponse(res: Response): Promise<ApiError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // fall through with an empty body
  }
  try {
    const body = JSON.parse(text) as { [K in keyof ErrorBody]?: unknown } | null;
    if (body && typeof body.code === 'string') {
      return new ApiError(body.code, typeof body.message === 'string' ? body.message : '', body.details, res.status);
    }
  } catch {
    // not JSON
  }
  const code = res.status === 401 ? 'unauthorized' : 'bad_response';
  return new ApiError(code, `HTTP ${res.status} ${res.statusText}`.trim(), null, res.status);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
