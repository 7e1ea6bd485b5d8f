/**
 * `Backend` over the console's HTTP API (same origin) and its SSE stream.
 * Only `main.ts` imports this file; components receive the `Backend` from context.
 */
import {
  ApiError,
  type Backend,
  type BackendEvent,
  type ErrorBody,
  type ExportFormat,
  type Subscriber,
  queueEventFrom,
} from './backend';
import { SseParser, type SseMessage } from './sse';
import { OPERATIONS } from './operations.gen';
import { DeclaredBackend, httpRoute, type AnswerOf, type Declared, type Request } from './operations';
import type { StepUpFor } from '../passkey';

export type WebBackendOptions = {
  /** Prefix for API URLs; `''` for same origin. */
  baseUrl?: string;
  /** Returns the bearer token at call time (it may be replaced while the app runs). */
  getToken: () => string | null;
  fetch?: typeof fetch;
  /** Reconnect backoff for the event stream. */
  minRetryMs?: number;
  maxRetryMs?: number;
  /**
   * The remote listener (a paired device's session): asks for the passkey for one decision and
   * returns the headers its request carries. Without it (127.0.0.1) decisions go as they are.
   */
  stepUp?: (what: StepUpFor) => Promise<Record<string, string>>;
};

/** The operations that decide, and the step-up each asks for (what the core binds the passkey to). */
function stepUpFor<K extends Declared>(name: K, request?: Request<K>): StepUpFor | null {
  const r = request as { path?: { id?: string }; input?: { fingerprint?: string; args?: unknown; resolution?: string } } | undefined;
  const itemId = r?.path?.id;
  const fingerprint = r?.input?.fingerprint;
  if (!itemId || !fingerprint) return null;
  switch (name) {
    case 'approve':
    case 'decline':
    case 'resume':
      return { itemId, fingerprint, decision: name };
    case 'approve_edited':
      return { itemId, fingerprint, decision: 'edit', args: r?.input?.args };
    case 'resolve':
      return { itemId, fingerprint, decision: r?.input?.resolution ?? '' };
    default:
      return null;
  }
}

export class WebBackend extends DeclaredBackend implements Backend {
  private readonly baseUrl: string;
  private readonly getToken: () => string | null;
  private readonly fetchFn: typeof fetch;
  private readonly minRetryMs: number;
  private readonly maxRetryMs: number;
  private readonly stepUp?: (what: StepUpFor) => Promise<Record<string, string>>;

  constructor(opts: WebBackendOptions) {
    super();
    this.baseUrl = opts.baseUrl ?? '';
    this.getToken = opts.getToken;
    // Bind: calling `window.fetch` detached from `window` throws "Illegal invocation".
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.minRetryMs = opts.minRetryMs ?? 1000;
    this.maxRetryMs = opts.maxRetryMs ?? 30000;
    this.stepUp = opts.stepUp;
  }

  /** Operation `name` at its route (operations.gen.ts): its path filled, its query or JSON body sent. */
  async run<K extends Declared>(name: K, request?: Request<K>): Promise<AnswerOf<K>> {
    const { method, url, body } = httpRoute(name, request);
    const decision = this.stepUp ? stepUpFor(name, request) : null;
    let extra: Record<string, string> = {};
    if (this.stepUp && decision) {
      try {
        extra = await this.stepUp(decision);
      } catch (e) {
        const code = e instanceof Error && 'code' in e ? String((e as { code: unknown }).code) : 'step_up_required';
        throw new ApiError(code === 'cancelled' || code === 'no_passkeys' || code === 'passkey' ? 'step_up_required' : code, errorText(e));
      }
    }
    return this.request(method, url, body, extra);
  }

  async exportAudit(format: ExportFormat): Promise<string> {
    const res = await this.send(...route('export_audit', {}, new URLSearchParams({ format })), undefined, 'text/plain, */*');
    try {
      return await res.text();
    } catch (e) {
      throw new ApiError('network', `The export stopped before it ended (${errorText(e)}).`, null, res.status);
    }
  }

  /** Only the desktop app can start at login: not available over HTTP. */
  async autostart(): Promise<boolean | null> {
    return null;
  }

  async setAutostart(_enabled: boolean): Promise<boolean> {
    throw new ApiError('invalid_request', 'only the desktop app can start at login');
  }

  subscribe(subscriber: Subscriber): () => void {
    const abort = new AbortController();
    void this.streamLoop(subscriber, abort.signal);
    // A channel's link (`#call=ID`) is the console's address for that call: the console follows it (`route.ts`).
    return () => abort.abort();
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json', ...extra };
    const token = this.getToken();
    if (token) h.Authorization = `Bearer ${token}`;
    return h;
  }

  /** Sends a request; a failed one (no answer, or not 2xx) becomes an `ApiError`. */
  private async send(method: string, path: string, body?: unknown, accept = 'application/json', extra: Record<string, string> = {}): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchFn(this.baseUrl + path, {
        method,
        headers: this.headers({ Accept: accept, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...extra }),
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch (e) {
      throw new ApiError('network', `The console server could not be reached (${errorText(e)}).`);
    }
    if (!res.ok) throw await errorFromResponse(res);
    return res;
  }

  private async request<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
    const res = await this.send(method, path, body, 'application/json', extra);
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
