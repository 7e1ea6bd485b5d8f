// The audit view's filters (issue 45): action, agent, source and days, each change read again from
// the server; bound to the shell (`filter`, `mode`), so a link's filter comes in and a change goes out.
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { makeAuditEntry } from '../testing/fixtures';
import { mountInBody, settle, type } from '../testing/mount';
import AuditView from './AuditView.svelte';

const entry = makeAuditEntry;

function history() {
  return [
    { decision: entry(4, 'decision.decline', { queueItemId: 'q2' }), delivery: null },
    { decision: entry(2, 'decision.approve'), delivery: null },
  ];
}

describe('AuditView filters', () => {
  it("filters by action, agent, source and days: each change asks the server again, and the link's filter comes in bound", async () => {
    const backend = new FakeBackend();
    backend.history = history();
    backend.audit = [
      entry(1, 'call.paused'),
      entry(2, 'decision.approve'),
      entry(3, 'settings.changed', { queueItemId: null, toolName: null, details: { setting: 'quorum', before: null, after: {} } }),
    ];
    backend.auditCalls = { q1: { agentId: 'demo', agentName: null, source: 'local', engine: 'local' }, q2: { agentId: 'billing', agentName: null, source: 'http', engine: 'http' } };
    const props = $state({ onerror: () => {}, filter: { action: '', agent: '', source: 'http' as '' | 'http', from: '', until: '' }, mode: 'decisions' as 'decisions' | 'entries' });
    const { target } = mountInBody(AuditView, { props, context: backendContext(backend) });
    await settle();
    const rows = () => [...target.querySelectorAll<HTMLElement>('[data-testid="audit-entry"]')].map((r) => r.dataset.itemId);
    const asked = () => backend.calls.filter((c) => c.method === 'decisionHistory' || c.method === 'listAudit').map((c) => (c.args[0] as { filter?: unknown }).filter);
    // The filter from the link: only the HTTP call's decision.
    expect(rows()).toEqual(['q2']);
    expect(asked()).toEqual([{ source: 'http' }]);
    const source = target.querySelector('[data-testid="audit-filter-source"]') as HTMLSelectElement;
    expect(source.value).toBe('http');

    source.value = '';
    source.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(rows()).toEqual(['q2', 'q1']);
    expect(props.filter.source).toBe('');
    const agent = target.querySelector('[data-testid="audit-filter-agent"]') as HTMLInputElement;
    type(agent, 'demo');
    agent.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(rows()).toEqual(['q1']);
    expect(asked().at(-1)).toEqual({ agent: 'demo' });

    // Days are this browser's: the query asks from the day's start to the next day's.
    const from = target.querySelector('[data-testid="audit-filter-from"]') as HTMLInputElement;
    from.value = '2025-01-01';
    from.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(asked().at(-1)).toEqual({ agent: 'demo', from: new Date(2025, 0, 1).toISOString() });

    // The whole log, by a family of actions; "Clear filters" shows everything again.
    (target.querySelector('[data-testid="audit-mode-entries"]') as HTMLElement).click();
    await settle();
    const action = target.querySelector('[data-testid="audit-filter-action"]') as HTMLSelectElement;
    (target.querySelector('[data-testid="audit-filter-clear"]') as HTMLElement).click();
    await settle();
    action.value = 'settings';
    action.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect([...target.querySelectorAll<HTMLElement>('[data-testid="audit-entry"]')].map((r) => r.dataset.action)).toEqual(['settings.changed']);
    expect(props.filter).toEqual({ action: 'settings', agent: '', source: '', from: '', until: '' });
    action.value = 'decision.decline';
    action.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(target.querySelector('[data-testid="audit-empty"]')!.textContent).toBe('Nothing matches these filters.');
  });
});
