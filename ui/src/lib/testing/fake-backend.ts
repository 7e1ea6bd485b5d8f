/** An in-memory `Backend` for unit tests: records calls, answers from a map of items. */
import { ApiError, type Backend, type Decision, type DecisionKind, type QueueItem, type Subscriber } from '../backend/backend';

export function makeItem(over: Partial<QueueItem> = {}): QueueItem {
  const id = over.id ?? 'q1';
  return {
    id,
    engine: 'local',
    agentId: 'demo',
    agentName: 'Demo agent',
    threadId: null,
    resourceId: null,
    runId: 'run-1',
    toolCallId: `call-${id}`,
    toolName: 'delete_record',
    args: { id: 'rec-1' },
    fingerprint: 'sha256:' + 'ab'.repeat(32),
    kind: 'approval',
    suspendPayload: null,
    resumeSchema: null,
    chain: [],
    state: 'pending',
    pausedAt: '2025-01-01T10:00:00Z',
    // What the server answers for a pending call of that kind; `[]` once it is no longer pending.
    allowed: (over.kind ?? 'approval') === 'suspend' ? ['resume'] : ['approve', 'decline'],
    decision: null,
    ...over,
  };
}

export class FakeBackend implements Backend {
  items = new Map<string, QueueItem>();
  calls: { method: string; args: unknown[] }[] = [];
  /** When set, the next decision call fails with it. */
  failNext: ApiError | null = null;
  subscriber: Subscriber | null = null;

  add(...items: QueueItem[]) {
    for (const i of items) this.items.set(i.id, i);
  }

  async listQueue(filter: { state?: string } = {}) {
    this.calls.push({ method: 'listQueue', args: [filter] });
    const items = [...this.items.values()]
      .filter((i) => (filter.state ?? 'pending') === 'all' || i.state === 'pending')
      .sort((a, b) => Date.parse(b.pausedAt) - Date.parse(a.pausedAt));
    return { items, nextCursor: null };
  }

  async getItem(id: string) {
    this.calls.push({ method: 'getItem', args: [id] });
    const i = this.items.get(id);
    if (!i) throw new ApiError('not_found', `no item ${id}`);
    return i;
  }

  private decide(method: string, id: string, fingerprint: string, decision: QueueItem['decision'], extra: unknown[]) {
    this.calls.push({ method, args: [id, fingerprint, ...extra] });
    const err = this.failNext;
    this.failNext = null;
    if (err) return Promise.reject(err);
    const item = { ...this.items.get(id)!, state: 'decided' as const, allowed: [], decision };
    this.items.set(id, item);
    return Promise.resolve(item);
  }

  approve(id: string, fingerprint: string) {
    return this.decide('approve', id, fingerprint, decision('approve', fingerprint, null, null), []);
  }
  decline(id: string, fingerprint: string, reason?: string) {
    return this.decide('decline', id, fingerprint, decision('decline', fingerprint, reason ?? null, null), [reason]);
  }
  resume(id: string, fingerprint: string, data: unknown) {
    return this.decide('resume', id, fingerprint, decision('resume', fingerprint, null, data), [data]);
  }

  subscribe(s: Subscriber) {
    this.subscriber = s;
    return () => {
      this.subscriber = null;
    };
  }

  async listAudit() {
    return { entries: [], nextCursor: null };
  }

  async verifyAudit() {
    return { ok: true, checked: 0, firstBad: null };
  }
}

function decision(kind: DecisionKind, fingerprint: string, reason: string | null, data: unknown): Decision {
  return { kind, reason, data, fingerprint, operator: 'web', decidedAt: '2025-01-01T10:01:00Z', delivery: 'pending', outcome: null };
}
