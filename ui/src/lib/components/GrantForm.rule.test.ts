// "Always allow…" for a coding agent's call (issue 47): the admin picks where the agent keeps the
// rule it is told — its session by default, its project's or its user's settings — and sees, before
// confirming, exactly the rule and where it goes, as the server's preview (`agentRule`) says.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { AgentRulePreview, RuleScope } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { check, mountInBody, settle } from '../testing/mount';
import GrantForm from './GrantForm.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The server's preview for a Claude Code Bash call in /repo. */
function claudeRule(scope: RuleScope): AgentRulePreview {
  const destination = { session: 'session', project: 'projectSettings', user: 'userSettings' }[scope];
  const location = { session: undefined, project: '/repo/.claude/settings.json', user: '~/.claude/settings.json' }[scope];
  const rule = [{ type: 'addRules', behavior: 'allow', destination, rules: [{ toolName: 'Bash', ruleContent: 'npm test' }] }];
  return { agent: 'claude-code', scopes: ['session', 'project', 'user'], rule: { agent: 'claude-code', scope, destination, rule, ...(location ? { location } : {}) } };
}

function render(agentRule: FakeBackend['agentRule']) {
  const backend = new FakeBackend();
  backend.agentRule = agentRule;
  const item = makeItem({ toolName: 'Bash', args: { command: 'npm test' }, source: 'claude-code' });
  backend.add(item);
  const { target } = mountInBody(GrantForm, { props: { item }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const sent = (method: string) => backend.calls.filter((c) => c.method === method).map((c) => c.args[0] as Record<string, unknown>);
  return { q, sent };
}

describe('Always allow…, where the agent keeps its rule', () => {
  it('defaults to the session, shows the rule the server built, and sends a project scope only when picked, shown again before confirming', async () => {
    const { q, sent } = render(claudeRule);
    q('grant-open')!.click();
    await settle();
    check(q('grant-condition-on'), true); // a shell-like tool's grant needs one
    await vi.waitFor(() => expect(q('grant-rule-text')).not.toBeNull(), { timeout: 5000 });
    expect((q('grant-rule-scope-session') as HTMLInputElement).checked).toBe(true);
    expect(text(q('grant-rule-where'))).toBe("kept in the agent's session");
    expect(q('grant-rule-text')!.textContent).toContain('"destination": "session"');

    (q('grant-rule-scope-project') as HTMLInputElement).click();
    flushSync();
    await vi.waitFor(() => expect(q('grant-rule-location')?.textContent).toBe('/repo/.claude/settings.json'), { timeout: 5000 });
    expect(sent('previewGrant').at(-1)!.ruleScope).toBe('project');
    expect(q('grant-rule-text')!.textContent).toContain('"destination": "projectSettings"');

    check(q('grant-leave-waiting'), true);
    q('grant-save')!.click();
    await settle();
    await vi.waitFor(() => expect(q('grant-confirm')).not.toBeNull());
    // Shown before confirming even when nothing waiting is approved now.
    expect(q('grant-rule-scope')!.dataset.scope).toBe('project');
    expect(text(q('grant-confirm'))).toContain('/repo/.claude/settings.json');
    expect(sent('createGrant')).toHaveLength(0);
    q('grant-confirm-yes')!.click();
    await settle();
    await vi.waitFor(() => expect(sent('createGrant')).toHaveLength(1));
    expect(sent('createGrant')[0].ruleScope).toBe('project');
  });

  it('offers no choice for a call of another source, and sends no scope by default', async () => {
    const { q, sent } = render(null);
    q('grant-open')!.click();
    await settle();
    await vi.waitFor(() => expect(sent('previewGrant').length).toBeGreaterThan(0));
    expect(q('grant-rule-scope')).toBeNull();
    expect(sent('previewGrant')[0]).not.toHaveProperty('ruleScope');
  });

  it("says when the agent takes no scopes (Codex's app-server) and when nothing is written back", async () => {
    const { q } = render(() => ({ agent: 'codex', scopes: ['session'], rule: null }));
    q('grant-open')!.click();
    await settle();
    check(q('grant-condition-on'), true);
    await vi.waitFor(() => expect(q('grant-rule-one-scope')).not.toBeNull(), { timeout: 5000 });
    expect(q('grant-rule-none')).not.toBeNull();
    expect(q('grant-rule-scope-project')).toBeNull();
  });
});
