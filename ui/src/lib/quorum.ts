/**
 * The two-person rule in the UI: where a call of a tool with a quorum stands ("1 of 2 approvals:
 * alice (web)"), whether the one looking at it approved it already, and the settings editor's rules.
 * The server decides every approval (`already_approved`, `own_run`); this only says so beforehand.
 */
import type { Principal, QueueItem, QuorumRule, QuorumSettings } from './backend/backend';

/** A principal's key as the server writes it in `approvals[].operatorKey` (`token:alice`, `local:bob`); `null` while its name is unknown. */
export function principalKey(p: Principal | null | undefined): string | null {
  return p && p.name !== '' ? `${p.kind}:${p.name}` : null;
}

/** Whether the call needs approvals by several operators. */
export function hasQuorum(item: Pick<QueueItem, 'quorum'>): boolean {
  return (item.quorum ?? 1) > 1;
}

/** Whether `me` approved this call already (it cannot approve it a second time). */
export function approvedBy(item: Pick<QueueItem, 'approvals'>, me: Principal | null | undefined): boolean {
  const key = principalKey(me);
  return key !== null && (item.approvals ?? []).some((a) => a.operatorKey === key);
}

/** The names of who approved so far, oldest first (audit names: `alice (web)`). */
export function approverNames(item: Pick<QueueItem, 'approvals'>): string[] {
  return (item.approvals ?? []).map((a) => a.operator);
}

/** A rule as the editor holds it (the number as typed). */
export type QuorumDraft = { tool: string; approvals: string | number | null };
/** `critical`: the approvals every call rated critical needs, as typed; empty for none. */
export type QuorumForm = { rules: QuorumDraft[]; critical: string | number | null };

export function toQuorumForm(s: QuorumSettings): QuorumForm {
  return { rules: (s.rules ?? []).map((r) => ({ tool: r.tool, approvals: r.approvals })), critical: s.critical ?? null };
}

/**
 * The settings to send: names trimmed, rules without a name dropped, the number as typed (the server
 * refuses one outside 2–10 and names the rule; nothing here second-guesses it).
 */
export function fromQuorumForm(form: QuorumForm): QuorumSettings {
  const rules: QuorumRule[] = [];
  for (const r of form.rules) {
    const tool = r.tool.trim();
    if (tool === '') continue;
    const n = typeof r.approvals === 'number' ? r.approvals : Number(String(r.approvals ?? '').trim());
    rules.push({ tool, approvals: Number.isFinite(n) ? n : 0 });
  }
  const typed = String(form.critical ?? '').trim();
  if (typed === '') return { rules };
  const critical = Number(typed);
  // 1 means what leaving it empty means; anything else goes to the server, which names what is wrong.
  return critical === 1 ? { rules } : { rules, critical: Number.isFinite(critical) ? critical : 0 };
}
