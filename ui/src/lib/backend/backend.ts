/**
 * The one surface the UI talks to. Components get a `Backend` from context
 * (see `context.ts`) and never know whether it is HTTP + SSE (`web.ts`) or,
 * later, Tauri IPC. Only `main.ts` chooses the implementation.
 */

/** A JSON Schema as the engine sends it for `resumeSchema`; only the parts the form reads are typed. */
export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  [key: string]: unknown;
};

export type ItemKind = 'approval' | 'suspend';
export type ItemState = 'pending' | 'decided' | 'delivered' | 'failed' | 'interrupted' | 'gone';
export type DecisionKind = 'approve' | 'decline' | 'resume';
export type DeliveryState = 'pending' | 'delivering' | 'delivered' | 'failed';

export type Decision = {
  kind: DecisionKind;
  reason: string | null;
  data: unknown | null;
  operator: string;
  decidedAt: string;
  delivery: DeliveryState;
  outcome: unknown | null;
};

export type ChainLink = { agentId: string; toolCallId: string; toolName: string };

/** One paused tool call. `args` and `suspendPayload` are untrusted and may be huge or deep. */
export type QueueItem = {
  id: string;
  engine: string;
  agentId: string;
  agentName: string | null;
  threadId: string | null;
  resourceId: string | null;
  runId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  /** `"sha256:" + 64 hex`; the value shown on screen is the one sent with a decision (rule C3). */
  fingerprint: string;
  kind: ItemKind;
  suspendPayload: unknown | null;
  resumeSchema: JsonSchema | null;
  chain: ChainLink[];
  state: ItemState;
  pausedAt: string;
  decision: Decision | null;
};

export type QueueFilter = {
  state?: 'pending' | 'all';
  engine?: string;
  agent?: string;
  tool?: string;
  kind?: ItemKind | '';
  thread?: string;
  limit?: number;
  cursor?: string | null;
};

export type Page<T> = { items: T[]; nextCursor: string | null };

export type AuditEntry = {
  seq: number;
  at: string;
  actor: string;
  action: string;
  queueItemId: string | null;
  toolName: string | null;
  fingerprint: string | null;
  details: unknown;
  hash: string;
};

export type AuditPage = { entries: AuditEntry[]; nextCursor: string | null };

export type AuditVerification = {
  ok: boolean;
  checked: number;
  firstBad: null | { seq: number; problem: string };
};

/** A change pushed by the server. `resync` means: reload whatever list you show. */
export type BackendEvent =
  | { kind: 'queue'; type: 'added' | 'updated' | 'removed'; id: string }
  | { kind: 'resync' };

/**
 * State of the live event connection. `open` is reported on every (re)connect; since events may
 * have been missed before it, a consumer reloads its list on `open`.
 */
export type ConnectionStatus =
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'retrying'; inMs: number; error: ApiError }
  | { state: 'stopped'; error: ApiError };

export type Subscriber = {
  onEvent: (event: BackendEvent) => void;
  onStatus?: (status: ConnectionStatus) => void;
};

export interface Backend {
  listQueue(filter?: QueueFilter): Promise<Page<QueueItem>>;
  getItem(id: string): Promise<QueueItem>;
  /** `fingerprint` must be the one displayed for the item, never a re-fetched one (rule C3). */
  approve(id: string, fingerprint: string): Promise<QueueItem>;
  decline(id: string, fingerprint: string, reason?: string): Promise<QueueItem>;
  resume(id: string, fingerprint: string, data: unknown): Promise<QueueItem>;
  /** Starts listening for live changes; returns a function that stops it. */
  subscribe(subscriber: Subscriber): () => void;
  listAudit(opts?: { limit?: number; cursor?: string | null }): Promise<AuditPage>;
  verifyAudit(): Promise<AuditVerification>;
}

/** Error codes the server documents; the UI branches on these, never on message text. */
export type KnownErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'fingerprint_mismatch'
  | 'already_decided'
  | 'invalid_resume_data'
  | 'invalid_request'
  | 'engine_error'
  | 'internal'
  /** Client side: the server could not be reached at all. */
  | 'network'
  /** Client side: the server answered with something that is not the `{code, message}` shape. */
  | 'bad_response';

/** A failed backend call: `code` decides how the UI reacts; `message` is for humans only. */
export class ApiError extends Error {
  readonly code: string;
  readonly details: unknown;
  readonly status: number | null;

  constructor(code: string, message: string, details?: unknown, status: number | null = null) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details ?? null;
    this.status = status;
  }

  /** Wraps anything thrown into an `ApiError` so callers handle one shape. */
  static from(e: unknown): ApiError {
    if (e instanceof ApiError) return e;
    if (e instanceof Error) return new ApiError('network', e.message);
    return new ApiError('network', String(e));
  }
}

/** `"sha256:<hex>"` → first 12 hex chars; anything else is returned cut to 12 chars. */
export function shortFingerprint(fp: string | null | undefined): string {
  if (!fp) return '';
  const hex = fp.startsWith('sha256:') ? fp.slice('sha256:'.length) : fp;
  return hex.slice(0, 12);
}
