// Settings → Policy: the version in force, the file, the policy files applied (as text).
import { describe, expect, it } from 'vitest';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import PolicyPanel from './PolicyPanel.svelte';

describe('PolicyPanel', () => {
  it('shows the version in force, the file and each policy applied, as text', async () => {
    const backend = new FakeBackend();
    backend.policy = {
      version: 'p-0123456789ab',
      file: 'high_risk_tools = ["<b>delete_record</b>"]\n',
      applied: [{ at: '2026-12-05T10:00:00Z', by: 'admin (cli)', before: 'p-aaaaaaaaaaaa', after: 'p-0123456789ab' }],
    };
    const { target } = mountInBody(PolicyPanel, { props: {}, context: backendContext(backend) });
    await settle();
    expect(target.querySelector('[data-testid="policy-version"]')!.textContent).toBe('p-0123456789ab');
    const file = target.querySelector('[data-testid="policy-file"]')!;
    expect(file.textContent).toContain('<b>delete_record</b>');
    expect(file.querySelector('b')).toBeNull();
    const applied = [...target.querySelectorAll('[data-testid="policy-applied"]')].map((li) => li.textContent!.replace(/\s+/g, ' '));
    expect(applied).toHaveLength(1);
    expect(applied[0]).toContain('admin (cli)');
    expect(applied[0]).toContain('p-aaaaaaaaaaaa → p-0123456789ab');
  });

  it('says when no policy file was applied yet', async () => {
    const { target } = mountInBody(PolicyPanel, { props: {}, context: backendContext(new FakeBackend()) });
    await settle();
    expect(target.querySelector('[data-testid="policy-no-history"]')).not.toBeNull();
  });
});
