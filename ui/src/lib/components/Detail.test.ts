import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeAwaitingDecision, makeItem } from '../testing/fake-backend';
import { mountInBody, settle as settleAll } from '../testing/mount';
import Detail from './Detail.svelte';

function render(item: QueueItem, backend: FakeBackend) {
  const ondecided = vi.fn();
  const onerror = vi.fn();
  const { target, unmount } = mountInBody(Detail, { props: { item, ondecided, onerror }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { q, unmount, ondecided, onerror };
}

// Microtasks only, fewer rounds: these tests need no timers to run.
const settle = () => settleAll({ rounds: 5, macrotasks: false });

describe('Detail', () => {
  it('shows the fingerprint short and full', () => {
    const item = makeItem({ fingerprint: 'sha256:0123456789abcdef' + '0'.repeat(48) });
    const { q } = render(item, new FakeBackend());
    expect(q('fingerprint-short')!.textContent).toBe('0123456789ab');
    expect(q('fingerprint-full')!.textContent).toBe(item.fingerprint);
    expect(q('detail-tool')!.textContent).toBe('delete_record');
  });

  it('shows the supervisor chain of a nested pause, as text (S13)', () => {
    const chain = [
      { agentId: 'boss', toolCallId: 'call_1', toolName: 'agent-worker' },
      { agentId: 'worker', toolCallId: 'call_1', toolName: 'agent-clerk' },
      { agentId: '<b>clerk</b>', toolCallId: 'call_2', toolName: 'delete_record' },
    ];
    const { q } = render(makeItem({ agentId: 'boss', chain }), new FakeBackend());
    const steps = [...q('detail')!.querySelectorAll('ol.chain li')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(steps).toEqual(['boss → agent-worker (call_1)', 'worker → agent-clerk (call_1)', '<b>clerk</b> → delete_record (call_2)']);
    expect(q('detail')!.querySelector('ol.chain b')).toBeNull();
  });

  it('marks where the call comes from next to its kind, the local engine too', () => {
    const badge = (over: Partial<QueueItem>) => render(makeItem(over), new FakeBackend()).q('detail-source')!;
    const local = badge({});
    expect([local.textContent, local.dataset.source, local.title]).toEqual(['Local engine', 'local', "From the console's local engine"]);
    expect(local.previousElementSibling!.textContent).toBe('approval');
    for (const [source, word] of [['mastra', 'Mastra'], ['http', 'HTTP'], ['claude-code', 'Claude Code'], ['codex', 'Codex'], ['mcp', 'MCP']] as const) {
      const b = badge({ engine: source, source });
      expect([b.textContent, b.dataset.source], source).toEqual([word, source]);
    }
    expect(badge({ engine: 'codex', source: 'codex' }).title).toBe("From Codex CLI's hook");
  });

  it("shows an ACP agent's choices as text, each with the decision here that answers with it", () => {
    const options = [
      { optionId: 'a1', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'a2', name: 'Always <img src=x onerror="window.__pwned=1">', kind: 'allow_always' },
      { optionId: 'r1', name: 'Reject', kind: 'reject_once' },
    ];
    const item = makeItem({ engine: 'acp', source: 'acp', toolName: 'execute', args: { title: 'rm -rf build' }, context: { event: 'session/request_permission', options } });
    const { q } = render(item, new FakeBackend());
    const rows = [...q('detail-agent-options')!.querySelectorAll('li')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(rows).toEqual([
      'Allow once (allow_once: what Approve answers)',
      'Always <img src=x onerror="window.__pwned=1"> (allow_always: what an “always allow” grant answers)',
      'Reject (reject_once: what Decline answers)',
    ]);
    expect(q('detail-agent-options')!.querySelector('img')).toBeNull();
    expect(q('detail-agent-options')!.parentElement!.previousElementSibling!.textContent).toBe('The agent offers');
    // Another source's context with the same key shows nothing.
    const other = render(makeItem({ engine: 'claude-code', source: 'claude-code', context: { options } }), new FakeBackend());
    expect(other.q('detail-agent-options')).toBeNull();
  });

  it("shows a hook's working directory and event from its context, as text; other keys and other values not", () => {
    const hook = (context: unknown) => render(makeItem({ engine: 'claude-code', source: 'claude-code', toolName: 'Bash', args: { command: 'ls' }, context }), new FakeBackend());
    const labels = (q: (id: string) => HTMLElement | null) => [...q('detail')!.querySelectorAll('.meta dt')].map((dt) => dt.textContent);
    const full = hook({ event: 'PreToolUse', cwd: '/home/dev/shop', permissionMode: 'default', toolUseId: 'toolu_01' });
    expect(full.q('detail-cwd')!.textContent).toBe('/home/dev/shop');
    expect(full.q('detail-hook-event')!.textContent).toBe('PreToolUse');
    expect(labels(full.q)).toEqual(['Agent', 'Engine', 'Working directory', 'Hook event', 'Paused at', 'Thread', 'Resource', 'Run', 'Tool call', 'Fingerprint']);
    expect(full.q('detail-cwd')!.parentElement!.previousElementSibling!.textContent).toBe('Working directory');
    const ids = full.q('detail')!.querySelector('.ids')!.textContent!;
    expect(ids).not.toContain('default');
    expect(ids).not.toContain('toolu_01');

    // Untrusted: never HTML, hidden characters marked.
    const html = hook({ cwd: '/srv/<img src=x onerror="window.__pwned=1">\u202Eapp', event: '<b>Pre</b>' });
    expect(html.q('detail-cwd')!.querySelector('img')).toBeNull();
    expect(html.q('detail-cwd')!.textContent).toBe('/srv/<img src=x onerror="window.__pwned=1">\\u{202E}app');
    expect(html.q('detail-cwd')!.querySelector('[data-mark="hidden"]')).not.toBeNull();
    expect(html.q('detail-hook-event')!.querySelector('b')).toBeNull();
    expect(html.q('detail-hook-event')!.textContent).toBe('<b>Pre</b>');

    // Only strings; only an object.
    const odd = hook({ cwd: ['/a'], event: 7 });
    expect([odd.q('detail-cwd'), odd.q('detail-hook-event')]).toEqual([null, null]);
    expect(labels(odd.q)).not.toContain('Working directory');
    const onlyEvent = hook({ event: 'PermissionRequest', cwd: null });
    expect([onlyEvent.q('detail-cwd'), onlyEvent.q('detail-hook-event')?.textContent]).toEqual([null, 'PermissionRequest']);
    for (const context of [null, 'cwd', ['cwd'], 42]) {
      const r = hook(context);
      expect([r.q('detail-cwd'), r.q('detail-hook-event')], JSON.stringify(context)).toEqual([null, null]);
    }
  });

  it('shows no chain for a direct call', () => {
    const { q } = render(makeItem(), new FakeBackend());
    expect(q('detail')!.querySelector('ol.chain')).toBeNull();
  });

  it('approves with the fingerprint on screen', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const { q, ondecided } = render(item, backend);
    // The call changes on the server after it was displayed: the on-screen fingerprint is still the one sent.
    backend.add({ ...item, fingerprint: 'sha256:' + 'ff'.repeat(32) });
    q('approve')!.click();
    await settle();
    q('approve-confirm')!.click();
    await settle();
    expect(backend.calls).toEqual([{ method: 'approve', args: [item.id, item.fingerprint] }]);
    expect(ondecided).toHaveBeenCalledOnce();
    expect(ondecided.mock.calls[0][0].decision.kind).toBe('approve');
  });

  it('declines with the typed reason', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    const { q } = render(item, backend);
    const input = q('decline-reason') as HTMLInputElement;
    input.value = 'not today';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    q('decline')!.click();
    await settle();
    expect(backend.calls).toEqual([{ method: 'decline', args: [item.id, item.fingerprint, 'not today'] }]);
  });

  it('hands a refused decision to the parent', async () => {
    const backend = new FakeBackend();
    const item = makeItem();
    backend.add(item);
    backend.failNext = new ApiError('fingerprint_mismatch', 'changed', { expected: item.fingerprint, actual: 'sha256:' + 'cd'.repeat(32) });
    const { q, onerror, ondecided } = render(item, backend);
    q('approve')!.click();
    await settle();
    q('approve-confirm')!.click();
    await settle();
    expect(ondecided).not.toHaveBeenCalled();
    expect(onerror.mock.calls[0][0].code).toBe('fingerprint_mismatch');
  });

  it('builds the resume form, checks required fields, and shows server errors by path', async () => {
    const backend = new FakeBackend();
    const item = makeItem({
      kind: 'suspend',
      toolName: 'ask_operator',
      suspendPayload: { question: 'what colour?' },
      resumeSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    });
    backend.add(item);
    const { q } = render(item, backend);
    const form = q('resume-form')!;
    const input = form.querySelector('input[name="answer"]') as HTMLInputElement;
    expect(input).not.toBeNull();
    expect(form.querySelector(`label[for="${input.id}"]`)!.textContent).toContain('answer');

    // Empty required field: nothing is sent.
    q('resume-submit')!.click();
    await settle();
    expect(backend.calls).toEqual([]);
    expect(form.querySelector('[data-testid="field-error"][data-path="/answer"]')).not.toBeNull();

    // The server refuses the value: its message appears next to the field.
    input.value = 'blue';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    backend.failNext = new ApiError('invalid_resume_data', 'bad', { errors: [{ path: '/answer', message: 'must be one of red, green' }] });
    q('resume-submit')!.click();
    await settle();
    expect(backend.calls).toEqual([{ method: 'resume', args: [item.id, item.fingerprint, { answer: 'blue' }] }]);
    expect(form.querySelector('[data-testid="field-error"][data-path="/answer"]')!.textContent).toContain('must be one of red, green');
  });

  it('falls back to a raw JSON textarea and reports parse errors before sending', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ kind: 'suspend', resumeSchema: { type: 'object', properties: { nested: { type: 'object' } } } });
    backend.add(item);
    const { q } = render(item, backend);
    const raw = q('resume-raw') as HTMLTextAreaElement;
    expect(raw).not.toBeNull();
    raw.value = '{not json';
    raw.dispatchEvent(new Event('input', { bubbles: true }));
    q('resume-submit')!.click();
    await settle();
    expect(backend.calls).toEqual([]);
    expect(q('resume-form')!.textContent).toMatch(/Not valid JSON/);
    raw.value = '{"nested": {"a": 1}}';
    raw.dispatchEvent(new Event('input', { bubbles: true }));
    q('resume-submit')!.click();
    await settle();
    expect(backend.calls).toEqual([{ method: 'resume', args: [item.id, item.fingerprint, { nested: { a: 1 } }] }]);
  });

  it('shows the decision instead of the controls once decided', () => {
    const item = makeItem({
      state: 'delivered',
      allowed: [],
      decision: {
        kind: 'decline',
        reason: 'not today',
        data: null,
        fingerprint: 'sha256:' + 'ab'.repeat(32),
        operator: 'web',
        decidedAt: '2025-01-01T10:01:00Z',
        delivery: 'delivered',
        outcome: { ok: true },
        attempts: 1,
        expiredAfterSecs: null,
        editedFingerprint: null,
        lastError: null,
        nextAttemptAt: null,
        receipt: null,
      },
    });
    const { q } = render(item, new FakeBackend());
    expect(q('approve')).toBeNull();
    expect(q('decision-result')!.textContent).toContain('Declined');
    expect(q('decision-result')!.textContent).toContain('not today');
    expect(q('decision-result')!.dataset.delivery).toBe('delivered');
  });

  it('shows a decision the engine has not received yet as awaiting delivery, with attempts, last error and next attempt', () => {
    const item = makeItem({
      engine: 'prod-mastra',
      state: 'decided',
      allowed: [],
      decision: makeAwaitingDecision({ attempts: 4, lastError: '<b>connect</b> ECONNREFUSED 127.0.0.1:4111', nextAttemptAt: '2025-01-01T10:07:30Z' }),
    });
    const { q } = render(item, new FakeBackend());
    expect(q('approve')).toBeNull();
    const box = q('awaiting-delivery')!;
    expect(box).not.toBeNull();
    expect(box.getAttribute('role')).toBe('status');
    expect(box.textContent).toContain('Awaiting delivery');
    expect(box.textContent).toContain('prod-mastra');
    expect(q('delivery-attempts')!.textContent).toBe('4');
    expect(q('delivery-last-error')!.textContent).toBe('<b>connect</b> ECONNREFUSED 127.0.0.1:4111');
    expect(q('delivery-last-error')!.querySelector('b')).toBeNull();
    expect(q('delivery-next-attempt')!.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T10:07:30Z');
    expect(q('detail')!.textContent).toContain('prod-mastra');
  });

  it('says awaiting delivery while the decision is being sent, without retry details it does not have', () => {
    const item = makeItem({
      state: 'decided',
      allowed: [],
      decision: makeAwaitingDecision({ delivery: 'delivering', attempts: 0, lastError: null, nextAttemptAt: null }),
    });
    const { q } = render(item, new FakeBackend());
    expect(q('awaiting-delivery')!.textContent).toContain('being sent');
    expect(q('delivery-attempts')!.textContent).toBe('0');
    expect(q('delivery-last-error')).toBeNull();
    expect(q('delivery-next-attempt')).toBeNull();
  });

  it('says a LangGraph request is held until the other requests of its interrupt are decided', () => {
    const item = makeItem({
      engine: 'lg',
      source: 'langgraph',
      state: 'decided',
      allowed: [],
      suspendPayload: { convention: 'hitl-middleware', position: 1, count: 2, allowedDecisions: ['approve', 'reject'] },
      decision: makeAwaitingDecision({ delivery: 'delivering', attempts: 1, lastError: null, nextAttemptAt: null }),
    });
    const { q } = render(item, new FakeBackend());
    expect(q('delivery-held')!.textContent).toBe(
      'This interrupt holds 2 requests and its graph takes their answers at once: this decision is sent with the others once all are decided.',
    );
    expect(q('awaiting-delivery')!.textContent).not.toContain('being sent to engine');
  });

  it('does not say awaiting delivery once delivered or failed', () => {
    for (const delivery of ['delivered', 'failed'] as const) {
      const item = makeItem({ state: delivery, allowed: [], decision: makeAwaitingDecision({ delivery, lastError: 'old error' }) });
      const { q, unmount } = render(item, new FakeBackend());
      expect(q('decision-result')!.dataset.delivery).toBe(delivery);
      expect(q('awaiting-delivery')).toBeNull();
      unmount();
    }
  });
});
