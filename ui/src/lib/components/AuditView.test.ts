// History and audit (C6): each decision with operator, time, fingerprint, arguments, outcome and
// the engine's answer; the chain checked on opening; the log exported as JSON Lines or CSV.
import { describe, expect, it } from 'vitest';
import { ApiError, type AuditEntry, type DecisionRecord } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { makeAuditEntry } from '../testing/fixtures';
import { mountInBody, settle } from '../testing/mount';
import AuditView from './AuditView.svelte';

const FP = 'sha256:' + '3c'.repeat(32);

function entry(seq: number, action: string, details: unknown, over: Partial<AuditEntry> = {}): AuditEntry {
  return makeAuditEntry(seq, action, { fingerprint: FP, details, prevHash: 'sha256:' + String(seq - 1).repeat(64).slice(0, 64), ...over });
}

function history(): DecisionRecord[] {
  return [
    {
      decision: entry(4, 'decision.decline', { args: { id: 'rec-2' }, verdict: { reason: '<b>not</b> today' } }, { queueItemId: 'q2', actor: 'bob (desktop)' }),
      delivery: null,
    },
    {
      decision: entry(2, 'decision.approve', { args: { id: 'rec-1', note: 'x'.repeat(500) }, verdict: {} }),
      delivery: entry(3, 'delivery.delivered', { outcome: { status: 'executed', result: { deleted: 'rec-1' } }, error: null }, { actor: 'engine:local' }),
    },
  ];
}

async function render(backend: FakeBackend) {
  const errors: ApiError[] = [];
  const saved: { text: string; name: string; type: string }[] = [];
  const { target } = mountInBody(AuditView, {
    props: { onerror: (e: ApiError) => errors.push(e), save: (text: string, name: string, type: string) => saved.push({ text, name, type }) },
    context: backendContext(backend),
  });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  const all = (sel: string) => [...target.querySelectorAll<HTMLElement>(sel)];
  return { q, all, errors, saved };
}

describe('AuditView', () => {
  it('lists each decision with operator, time, verdict, fingerprint, arguments, delivery and the engine\'s answer', async () => {
    const backend = new FakeBackend();
    backend.history = history();
    const { q, all } = await render(backend);
    const rows = all('[data-testid="audit-entry"][data-kind="decision"]');
    expect(rows.map((r) => [r.dataset.itemId, r.dataset.action, r.dataset.delivery])).toEqual([
      ['q2', 'decision.decline', ''],
      ['q1', 'decision.approve', 'delivered'],
    ]);
    const [decline, approve] = rows;
    expect(decline.querySelector('[data-testid="history-operator"]')!.textContent).toBe('bob (desktop)');
    // Untrusted text stays text.
    expect(decline.querySelector('[data-testid="history-verdict"]')!.textContent).toContain('<b>not</b> today');
    expect(decline.querySelector('b')).toBeNull();
    expect(decline.querySelector('[data-testid="history-delivery"]')!.textContent).toContain('not delivered yet');
    expect(approve.querySelector('[data-testid="history-verdict"]')!.textContent).toContain('approved');
    expect(approve.querySelector('[data-testid="history-fingerprint"]')!.getAttribute('title')).toBe(FP);
    const args = approve.querySelector('[data-testid="history-args"]')!.textContent!;
    expect(args.startsWith('{"id":"rec-1","note":"xxx')).toBe(true);
    expect(args.length).toBeLessThanOrEqual(120);
    // What became of it in words (issue 45), the engine's own answer under "details".
    expect(approve.querySelector('[data-testid="history-outcome"]')!.textContent).toBe('the tool ran: {"deleted":"rec-1"}');
    expect(approve.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T10:02:00Z');

    approve.querySelector('button')!.click();
    await settle();
    expect(q('[data-testid="history-args-tree"]')!.textContent).toContain('rec-1');
    expect(q('[data-testid="history-outcome-tree"]')!.textContent).toContain('executed');
  });

  it('checks the hash chain on opening and again on request, saying where it breaks', async () => {
    const backend = new FakeBackend();
    backend.verification = { ok: true, checked: 12, firstBad: null };
    const { q } = await render(backend);
    expect(q('[data-testid="verify-result"]')!.dataset.ok).toBe('true');
    expect(q('[data-testid="verify-result"]')!.textContent).toContain('12 entries checked');
    backend.verification = { ok: false, checked: 4, firstBad: { seq: 5, problem: 'its content does not match its hash (edited)' } };
    q('[data-testid="verify-audit"]')!.click();
    await settle();
    expect(q('[data-testid="verify-result"]')!.dataset.ok).toBe('false');
    expect(q('[data-testid="verify-result"]')!.textContent).toContain('at entry 5: its content does not match its hash (edited)');
    expect(backend.calls.filter((c) => c.method === 'verifyAudit')).toHaveLength(2);
  });

  it('shows every entry of the log on request', async () => {
    const backend = new FakeBackend();
    backend.audit = [entry(1, 'call.paused', { args: { id: 'rec-1' } }), entry(2, 'decision.approve', {})];
    const { q, all } = await render(backend);
    expect(all('[data-testid="audit-entry"][data-kind="entry"]')).toEqual([]);
    q('[data-testid="audit-mode-entries"]')!.click();
    await settle();
    expect(all('[data-testid="audit-entry"]').map((e) => [e.dataset.kind, e.dataset.seq, e.dataset.action])).toEqual([
      ['entry', '2', 'decision.approve'],
      ['entry', '1', 'call.paused'],
    ]);
    expect(q('[data-testid="audit-mode-entries"]')!.getAttribute('aria-pressed')).toBe('true');
  });

  it('exports the whole log as JSON Lines or CSV, saved as a file', async () => {
    const backend = new FakeBackend();
    backend.audit = [entry(1, 'call.paused', {}), entry(2, 'decision.approve', {})];
    const { q, saved, errors } = await render(backend);
    q('[data-testid="export-jsonl"]')!.click();
    await settle();
    expect(saved).toHaveLength(1);
    expect(saved[0].name).toMatch(/^approval-console-audit-\d{8}T\d{6}Z\.jsonl$/);
    expect(saved[0].type).toContain('application/x-ndjson');
    expect(saved[0].text.trimEnd().split('\n').map((l) => JSON.parse(l).seq)).toEqual([1, 2]);
    expect(q('[data-testid="export-done"]')!.textContent).toContain(saved[0].name);

    q('[data-testid="export-csv"]')!.click();
    await settle();
    expect(saved[1].name).toMatch(/\.csv$/);
    expect(saved[1].type).toContain('text/csv');

    backend.failExport = new ApiError('storage_busy', 'busy');
    q('[data-testid="export-jsonl"]')!.click();
    await settle();
    expect(saved).toHaveLength(2);
    expect(errors.map((e) => e.code)).toEqual(['storage_busy']);
  });

  it('lets a backend that saves files itself (the desktop app) save the export, and says where', async () => {
    const backend = new FakeBackend();
    const asked: string[] = [];
    backend.saveAuditExport = async (format) => {
      asked.push(format);
      return { path: `/home/op/Downloads/approval-console-audit-20250101T100000Z.${format}` };
    };
    const { q, saved } = await render(backend);
    q('[data-testid="export-csv"]')!.click();
    await settle();
    expect(asked).toEqual(['csv']);
    expect(saved).toEqual([]);
    expect(q('[data-testid="export-done"]')!.textContent).toContain('/home/op/Downloads/approval-console-audit-20250101T100000Z.csv');
  });

  it('shows what a change to the rules changed, field by field, as text; an engine token never, only what became of it', async () => {
    const backend = new FakeBackend();
    const rule = { queueItemId: null, toolName: null, fingerprint: null };
    backend.audit = [
      entry(1, 'settings.changed', { setting: 'quorum', before: { rules: [{ tool: 'delete_record', approvals: 2 }] }, after: { rules: [] } }, { ...rule, actor: 'mallory (web)' }),
      entry(2, 'engine.changed', { engine: '<img src=x onerror=alert(1)>', before: { baseUrl: 'http://a', pollMs: 1000, token: 'keyring' }, after: { baseUrl: 'http://b', pollMs: 1000, token: 'keyring' }, tokenChange: 'kept for the new URL' }, rule),
      entry(3, 'credential.created', { name: 'grafana', role: 'viewer' }, rule),
      entry(4, 'call.paused', { args: { id: 'rec-1' } }),
    ];
    const { q, all } = await render(backend);
    q('[data-testid="audit-mode-entries"]')!.click();
    await settle();
    const rows = all('[data-testid="audit-entry"][data-kind="entry"]');
    const cell = (seq: number) => rows.find((r) => r.dataset.seq === String(seq))!.querySelector('[data-testid="audit-change"]')!;
    const words = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    expect(words(cell(1).querySelector('[data-testid="audit-change-subject"]'))).toBe('Setting quorum · changed');
    // Newest first: the engine's change, then the quorum's.
    expect(all('[data-testid="audit-change-field"]').map((f) => [f.dataset.field, words(f)])).toEqual([
      ['baseUrl', 'baseUrl: http://a → http://b'],
      ['rules', 'rules: [{"tool":"delete_record","approvals":2}] → []'],
    ]);
    expect(words(cell(2).querySelector('[data-testid="audit-change-token"]'))).toBe('Its token: kept, and sent to the new URL');
    // A name from the wire stays text.
    expect(cell(2).querySelector('img')).toBeNull();
    expect(words(cell(2))).toContain('<img src=x onerror=alert(1)>');
    expect(words(cell(3))).toBe('Token grafana (viewer) · added');
    expect(words(cell(4))).toBe('');
  });

  it("shows each decision's agent and source, a grant by what it allows, and a submitted call as handed to the agent", async () => {
    const backend = new FakeBackend();
    backend.history = [
      {
        decision: entry(6, 'decision.approve', { args: { to: 'x' }, verdict: {} }, { queueItemId: 'q9', toolName: 'send_email', actor: 'grant g_77 (made by admin (web))' }),
        delivery: entry(7, 'delivery.delivered', { outcome: { handedOver: 'the decision waits for the agent to fetch it (GET /api/calls/{id})' }, error: null }, { queueItemId: 'q9' }),
      },
    ];
    backend.auditCalls = { q9: { agentId: 'billing-bot', agentName: '<img src=x onerror=alert(1)>', source: 'http', engine: 'http' } };
    backend.auditGrants = { g_77: { id: 'g_77', toolName: 'send_email', scope: 'agent', engine: 'http', agentId: 'billing-bot', createdBy: 'admin (web)', conditions: 2 } };
    const { q } = await render(backend);
    const row = q('[data-testid="audit-entry"][data-kind="decision"]')!;
    expect(row.querySelector('[data-testid="history-agent"]')!.textContent!.trim()).toBe('<img src=x onerror=alert(1)>');
    expect(row.querySelector('img')).toBeNull();
    expect(row.querySelector('[data-testid="history-source"]')!.textContent!.trim()).toBe('HTTP');
    const by = row.querySelector('[data-testid="audit-grant"]') as HTMLElement;
    expect(by.textContent!.replace(/\s+/g, ' ').trim()).toBe('Always allow send_email for billing-bot · 2 conditions · made by admin (web)');
    expect(by.dataset.grantId).toBe('g_77');
    expect(row.querySelector('[data-testid="history-operator"]')!.textContent).not.toContain('g_77');
    expect(row.querySelector('[data-testid="history-outcome"]')!.textContent).toBe('handed to the agent');
    expect(row.textContent).not.toContain('handedOver');
    expect(row.querySelector('[data-testid="audit-time"]')!.textContent).toMatch(/Jan 1/);
  });
});
