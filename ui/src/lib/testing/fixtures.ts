/** Server data for unit tests, as the server would answer it: calls, engines, decisions, grants, settings. */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical';
import type {
  AuditEntry,
  Decision,
  DecisionKind,
  Device,
  EngineView,
  Grant,
  ItemState,
  NotificationSettings,
  NotifyStatus,
  QueueItem,
  QueueTab,
} from '../backend/backend';
import type { TeamStats } from '../team';

/** The server's fingerprint of a call (S7), computed with Node's SHA-256 over our canonical JSON. */
export function fingerprintOf(toolName: string, args: unknown): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson({ toolName, args }), 'utf8').digest('hex');
}

/** The tab the server lists a call under (`QueueTab::of`). */
export function tabOf(state: ItemState, decision: Decision | null | undefined): QueueTab {
  switch (state) {
    case 'pending':
      return 'pending';
    case 'decided':
      return 'awaiting_delivery';
    case 'gone':
      return 'gone';
    default:
      return decision?.expiredAfterSecs != null ? 'expired' : 'decided';
  }
}

/** A pending call; its fingerprint is the true one of its tool name and arguments unless given, its tab follows from its state. */
export function makeItem(over: Partial<QueueItem> = {}): QueueItem {
  const id = over.id ?? 'q1';
  const toolName = over.toolName ?? 'delete_record';
  const args = 'args' in over ? over.args : { id: 'rec-1' };
  const item: QueueItem = {
    id,
    engine: 'local',
    source: 'local',
    context: null,
    agentId: 'demo',
    agentName: 'Demo agent',
    requestedBy: null,
    threadId: null,
    resourceId: null,
    runId: 'run-1',
    toolCallId: `call-${id}`,
    toolName: 'delete_record',
    args: { id: 'rec-1' },
    fingerprint: over.fingerprint ?? fingerprintOf(toolName, args),
    kind: 'approval',
    suspendPayload: null,
    resumeSchema: null,
    chain: [],
    state: 'pending',
    pausedAt: '2025-01-01T10:00:00Z',
    // What the server answers for a pending call of that kind; `[]` once it is no longer pending.
    allowed: (over.kind ?? 'approval') === 'suspend' ? ['resume'] : ['approve', 'decline'],
    decision: null,
    expiresAt: null,
    approveBlocked: null,
    pauseReason: null,
    highRisk: false,
    risk: { level: 'low', reasons: [] },
    changes: null,
    resolution: null,
    quorum: 1,
    approvals: [],
    tab: 'pending',
    ...over,
  };
  return { ...item, tab: over.tab ?? tabOf(item.state, item.decision) };
}

/**
 * A call whose tool was running when the console stopped: approved (by `web`), `interrupted`, not
 * resolved; it allows `ran` and `did_not_run` (give `allowed` to add `run_again`).
 */
export function makeInterrupted(over: Partial<QueueItem> = {}): QueueItem {
  const base = makeItem(over);
  return makeItem({
    state: 'interrupted',
    allowed: ['ran', 'did_not_run'],
    decision: { ...decision('approve', base.fingerprint, null, null), delivery: 'delivered', attempts: 1 },
    ...over,
  });
}

export function makeEngine(over: Partial<EngineView> = {}): EngineView {
  return {
    name: 'remote',
    kind: 'mastra',
    baseUrl: 'http://127.0.0.1:4111',
    hasToken: false,
    sessionToken: false,
    pollMs: 1000,
    health: { state: 'unknown', lastError: null, lastErrorAt: null, lastOkAt: null },
    pending: 0,
    awaitingDelivery: 0,
    syncedHere: true,
    createdAt: '2025-01-01T09:00:00Z',
    updatedAt: '2025-01-01T09:00:00Z',
    ...over,
  };
}

/** A decision waiting in the outbox: the engine could not be reached yet. */
export function makeAwaitingDecision(over: Partial<Decision> = {}): Decision {
  return {
    ...decision('approve', 'sha256:' + 'ab'.repeat(32), null, null),
    attempts: 3,
    lastError: 'engine unreachable: connection refused (127.0.0.1:4111)',
    nextAttemptAt: '2025-01-01T10:05:00Z',
    ...over,
  };
}

export function makeNotifyStatus(over: Partial<NotifyStatus> = {}): NotifyStatus {
  return { running: true, available: true, lastError: null, lastErrorAt: null, shown: 0, missed: 0, ...over };
}

/** The server's defaults: on, no quiet hours, every engine and agent, no high-risk tools. */
export function defaultNotificationSettings(): NotificationSettings {
  return { enabled: true, quietHours: null, engines: null, agents: null, highRiskTools: [] };
}

/** A paired device as listed: alice's phone, paired on 1 Jan 2025, never used, no session. */
export function makeDevice(over: Partial<Device> = {}): Device {
  return {
    id: 'd1',
    name: 'alice-phone-1',
    person: 'alice',
    createdAt: '2025-01-01T10:00:00Z',
    createdBy: 'local:me (web)',
    lastUsedAt: null,
    sessions: 0,
    ...over,
  };
}

export function makeGrant(over: Partial<Grant> = {}): Grant {
  return {
    id: 'g1',
    scope: 'agent',
    engine: 'local',
    agentId: 'demo',
    runId: null,
    toolName: 'delete_record',
    conditions: [],
    fromItem: 'q1',
    createdAt: '2025-01-01T10:00:00Z',
    createdBy: 'web',
    expiresAt: '2999-01-01T10:00:00Z',
    revokedAt: null,
    revokedBy: null,
    uses: 0,
    appliesFrom: null,
    requestedBy: null,
    shadow: false,
    ruleScope: 'session',
    ...over,
  };
}

/** A decision as the server shows it, by `web`, delivery pending, without a receipt (as one stored before receipts). */
export function decision(kind: DecisionKind, fingerprint: string, reason: string | null, data: unknown): Decision {
  return { kind, reason, data, fingerprint, operator: 'web', decidedAt: '2025-01-01T10:01:00Z', delivery: 'pending', outcome: null, attempts: 0, lastError: null, nextAttemptAt: null, expiredAfterSecs: null, editedFingerprint: null, receipt: null };
}

/** The figures of `GET /api/stats` for a week: the example of the API's documentation, one tool and one operator. */
export function makeTeamStats(over: Partial<TeamStats> = {}): TeamStats {
  return {
    since: '2026-11-24T00:00:00.000000Z',
    until: '2026-12-01T19:00:00.000000Z',
    decisions: { approved: 12, declined: 3, expired: 1, resumed: 2, total: 18 },
    byTool: [{ tool: 'delete_record', decided: 9, p50Secs: 41.5, p90Secs: 300, declined: 2, expired: 1 }],
    byOperator: [{ operator: 'alice (web)', decided: 7, p50Secs: 20, p90Secs: 95 }],
    pendingOverTime: [
      { at: '2026-11-30T17:00:00.000000Z', pending: 1 },
      { at: '2026-11-30T18:00:00.000000Z', pending: 4 },
    ],
    ...over,
  };
}

/** Figures of a period with nothing in it. */
export function emptyTeamStats(): TeamStats {
  return makeTeamStats({ decisions: { approved: 0, declined: 0, expired: 0, resumed: 0, total: 0 }, byTool: [], byOperator: [], pendingOverTime: [] });
}

/** Unpadded base64url of the UTF-8 of `text`, as a receipt's segments are written. */
export function base64url(text: string): string {
  const binary = Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join('');
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * A decision receipt as the server writes it (docs/receipts.md): its header, the canonical JSON of
 * the docs' example claims with `over` applied (`undefined` leaves a claim out), and 64 bytes in
 * place of an Ed25519 signature (the UI never verifies one).
 */
export function makeReceipt(over: Record<string, unknown> = {}, kid = 'ed25519-3f4b19a00c1d8e72'): string {
  const claims = {
    version: 1,
    id: 'rct_4be0c1d2e3f4a5b6c7d8e9f0a1b2c3d4',
    decision: 'approved',
    edited: false,
    fingerprint: 'sha256:' + 'ab'.repeat(32),
    executedFingerprint: 'sha256:' + 'ab'.repeat(32),
    tool: 'delete_record',
    source: 'local',
    engine: 'local@7f3a',
    agent: 'ops',
    runId: 'run_12',
    toolCallId: 'call_1',
    callId: 'itm_0b5e',
    approvers: ['local:admin'],
    policyVersion: 'pv_91ab',
    issuedAt: 1764949800,
    expiresAt: 1764950400,
    ...over,
  };
  // A claim that does not apply is absent, never null: `undefined` in `over` leaves one out.
  const present = Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined));
  const header = base64url(JSON.stringify({ alg: 'EdDSA', kid, typ: 'approval-receipt' }));
  return `${header}.${base64url(canonicalJson(present))}.${base64url('\u0007'.repeat(64))}`;
}

/** An audit entry `seq` of `action` about call q1 (`delete_record`), by alice, hashed by its number. */
export function makeAuditEntry(seq: number, action: string, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    seq,
    at: `2025-01-01T10:0${seq}:00Z`,
    actor: 'alice (web)',
    action,
    queueItemId: 'q1',
    toolName: 'delete_record',
    fingerprint: null,
    details: {},
    prevHash: 'sha256:' + '0'.repeat(64),
    hash: 'sha256:' + String(seq).repeat(64).slice(0, 64),
    ...over,
  };
}
