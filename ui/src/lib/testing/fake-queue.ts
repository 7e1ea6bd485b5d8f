/** The queue part of `FakeBackend`: its calls, their listing, presence and decisions, and who the session is. */
import {
  ApiError,
  type CallReason,
  type Principal,
  type QueueCounts,
  type QueueFilter,
  type QueueItem,
  type QueuePage,
  type QueueTab,
  type ResolutionKind,
  type Subscriber,
  type Viewer,
} from '../backend/backend';
import { matchesSearch } from '../search';
import { decision, fingerprintOf } from './fixtures';
import { checkSourceFilter, resolveLikeServer } from './server-rules';

export class FakeQueue {
  items = new Map<string, QueueItem>();
  calls: { method: string; args: unknown[] }[] = [];
  /** When set, the next decision call fails with it. */
  failNext: ApiError | null = null;
  subscriber: Subscriber | null = null;
  /** When set, `listQueue` fails with it (every time, until cleared). */
  failListQueue: ApiError | null = null;

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

  /** What `callReason` answers, by item id; an item without one has no conversation. */
  reasons = new Map<string, CallReason>();
  /** The ids `callReason` was asked for (a read, kept apart from `calls`, the decisions). */
  reasonsAsked: string[] = [];

  async callReason(id: string): Promise<CallReason> {
    this.reasonsAsked.push(id);
    if (!this.items.has(id)) throw new ApiError('not_found', `no item ${id}`);
    return this.reasons.get(id) ?? { source: 'none', messages: [], earlier: false, unavailable: 'its agent sent no conversation with it' };
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

  /** Records the call, then fails with `failNext` if set. Used by the engine changes. */
  protected engineCall(method: string, args: unknown[]): void {
    this.calls.push({ method, args });
    const err = this.failNext;
    this.failNext = null;
    if (err) throw err;
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
}

/** A deep copy as it would cross the wire, so the UI never shares objects with the fake's store. */
export function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
