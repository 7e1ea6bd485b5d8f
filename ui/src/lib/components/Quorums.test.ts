// Settings → Approvals needed (the two-person rule): shown, edited and saved with the view's one
// Save; a refusal marks the rule it names; an operator only reads them.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import SettingsView from './SettingsView.svelte';

async function render(backend: FakeBackend, principal = { name: 'me', role: 'admin' as const, kind: 'local' as const }) {
  const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend, principal) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...target.querySelectorAll(`[data-testid="${id}"]`)] as HTMLInputElement[];
  return { target, tid, all };
}

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

describe('Settings: approvals needed', () => {
  it('shows the stored quorums, adds one and saves them with the other settings', async () => {
    const backend = new FakeBackend();
    backend.quorum = { rules: [{ tool: 'delete_record', approvals: 2 }] };
    const { tid, all } = await render(backend);
    expect(all('quorum-rule-tool').map((i) => i.value)).toEqual(['delete_record']);
    expect(all('quorum-rule-approvals').map((i) => i.value)).toEqual(['2']);
    tid('quorum-add-rule')!.click();
    flushSync();
    type(all('quorum-rule-tool')[1], ' wire_money ');
    type(all('quorum-rule-approvals')[1], '3');
    flushSync();
    expect(tid('settings-unsaved')).not.toBeNull();
    tid('settings-save')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'saveQuorumSettings')).toEqual([
      { method: 'saveQuorumSettings', args: [{ rules: [{ tool: 'delete_record', approvals: 2 }, { tool: 'wire_money', approvals: 3 }] }] },
    ]);
    expect(backend.quorum.rules).toHaveLength(2);
    expect(text(tid('settings-saved'))).toContain('Approvals needed: delete_record 2, wire_money 3.');
  });

  it('marks the rule the server refuses, and saves nothing of it', async () => {
    const backend = new FakeBackend();
    const { tid, all, target } = await render(backend);
    expect(tid('quorum-none')).not.toBeNull();
    tid('quorum-add-rule')!.click();
    flushSync();
    type(all('quorum-rule-tool')[0], 'delete_record');
    type(all('quorum-rule-approvals')[0], '1');
    tid('settings-save')!.click();
    await settle();
    expect(text(tid('quorum-save-error'))).toContain('approvals must be 2 to 10');
    expect(target.querySelector('[data-testid="quorum-rule"].invalid')).not.toBeNull();
    expect(tid('settings-not-saved')).not.toBeNull();
    expect(backend.quorum).toEqual({ rules: [] });
  });

  it('is read-only for an operator: no adding, removing or typing', async () => {
    const backend = new FakeBackend();
    backend.quorum = { rules: [{ tool: 'delete_record', approvals: 2 }] };
    const { tid, all } = await render(backend, { name: 'o', role: 'operator' as never, kind: 'token' as never });
    expect(all('quorum-rule-tool')[0].readOnly).toBe(true);
    expect(all('quorum-rule-approvals')[0].readOnly).toBe(true);
    expect(tid('quorum-add-rule')).toBeNull();
    expect(tid('quorum-rule-remove')).toBeNull();
  });
});
