// The detail leads with what matters: the tool, what it would do (its arguments, or the question it
// asks), why it paused, whether the tool is high-risk; the ids come below. A decided call says what
// became of it in one sentence.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { decision, FakeBackend, makeAwaitingDecision, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Detail from './Detail.svelte';

const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function render(item: QueueItem, props: { highRisk?: boolean | null } = {}, backend = new FakeBackend()) {
  backend.add(item);
  const ondecided = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided, onerror: vi.fn(), ...props }, context: backendContext(backend) });
  flushSync();
  const q = (id: string) => target.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  return { target, q, backend, ondecided };
}

const reason = (pauseReason: QueueItem['pauseReason']) => text(render(makeItem({ pauseReason })).q('pause-reason'));

describe('Detail: what matters first', () => {
  it('says why the call paused, in words, for every reason the server gives', () => {
    expect(reason({ kind: 'tool' })).toBe('Why it paused: The tool always requires approval');
    expect(reason({ kind: 'request' })).toBe('Why it paused: The request asked to approve every call');
    expect(reason({ kind: 'requestRule', rule: 2 })).toBe('Why it paused: Approval rule 2 of the request matched');
    expect(reason({ kind: 'requestRule', rule: null })).toBe('Why it paused: An approval rule of the request matched');
    expect(reason({ kind: 'agentRule', rule: 1, agent: 'ops' })).toBe('Why it paused: Approval rule 1 of agent ops matched');
    expect(reason({ kind: 'agentRule', rule: 1 })).toBe("Why it paused: Approval rule 1 of the agent's configuration matched");
    expect(reason({ kind: 'predicate' })).toBe("Why it paused: The request's approval check decided so");
    expect(reason({ kind: 'predicateFailed', detail: 'timed out after 1 s' })).toBe(
      "Why it paused: The request's approval check failed, so approval is required: timed out after 1 s",
    );
    expect(reason({ kind: 'predicateFailed' })).toBe("Why it paused: The request's approval check failed, so approval is required");
    expect(reason({ kind: 'suspended' })).toBe('Why it paused: The tool stopped to ask a question');
    expect(reason({ kind: 'remote' })).toBe('Why it paused: The remote engine paused it');
    // Absent or null (a server that does not send it yet): nothing.
    expect(render(makeItem()).q('pause-reason')).toBeNull();
    expect(render(makeItem({ pauseReason: null })).q('pause-reason')).toBeNull();
  });

  it('says it in Japanese too, with an agent name marked and never as HTML', () => {
    i18n.set('ja');
    try {
      const { q } = render(makeItem({ pauseReason: { kind: 'agentRule', rule: 2, agent: '<b>o\u202Eps</b>' } }));
      const why = q('pause-reason')!;
      expect(text(why)).toBe('一時停止の理由: エージェント <b>o\\u{202E}ps</b> の承認ルール 2 に一致しました');
      expect(why.querySelector('b')).toBeNull();
      expect(why.querySelector('[data-mark="hidden"]')).not.toBeNull();
      expect(why.dataset.kind).toBe('agentRule');
    } finally {
      i18n.set('en');
    }
  });

  it('marks a high-risk tool when the call or the settings\' list says so', () => {
    expect(render(makeItem(), { highRisk: true }).q('detail-high-risk')).not.toBeNull();
    expect(render(makeItem(), { highRisk: false }).q('detail-high-risk')).toBeNull();
    expect(render(makeItem({ highRisk: true }), { highRisk: false }).q('detail-high-risk')).not.toBeNull();
    // The settings may be newer than the call as it was read: either saying so marks it.
    expect(render(makeItem({ highRisk: false }), { highRisk: true }).q('detail-high-risk')).not.toBeNull();
    const notRisky = render(makeItem({ highRisk: false }), { highRisk: false });
    expect(notRisky.q('detail-high-risk')).toBeNull();
    expect(notRisky.q('grant-open')).not.toBeNull();
    expect(text(render(makeItem(), { highRisk: true }).q('detail-high-risk'))).toBe('⚠ high risk');
  });

  it('shows a call\'s risk with every reason as text, most serious first, and nothing for a low call', () => {
    const risky = makeItem({
      toolName: 'Bash',
      args: { command: 'git push --force origin main' },
      highRisk: true,
      risk: {
        level: 'high',
        reasons: [
          { level: 'high', text: 'force push to a protected branch' },
          { level: 'medium', text: '<b>Bash</b> is a high-risk tool (settings)' },
        ],
      },
    });
    const { q, target } = render(risky);
    const note = q('detail-risk')!;
    expect(note.dataset.level).toBe('high');
    // The level on the one risk chip (issue 45: Low / Medium / High / Critical everywhere).
    expect(note.querySelector('[data-testid="detail-risk-chip"]')!.textContent).toBe('High');
    expect(text(note)).toContain('no grant');
    const reasons = [...target.querySelectorAll<HTMLElement>('[data-testid="detail-risk-reason"]')];
    expect(reasons.map((r) => [r.dataset.level, r.textContent])).toEqual([
      ['high', 'force push to a protected branch'],
      ['medium', '<b>Bash</b> is a high-risk tool (settings)'],
    ]);
    expect(note.querySelector('b')).toBeNull();
    const medium = render(makeItem({ risk: { level: 'medium', reasons: [{ level: 'medium', text: 'resets the branch' }] } }));
    expect(medium.q('detail-risk-chip')!.textContent).toBe('Medium');
    expect(text(medium.q('detail-risk'))).not.toContain('no grant');
    expect(render(makeItem({ risk: { level: 'low', reasons: [] } })).q('detail-risk')).toBeNull();
  });

  it('puts why it paused and the arguments first, the ids after them, and the decision last (its bar sticks to the bottom of the pane)', () => {
    const { target, q } = render(makeItem({ pauseReason: { kind: 'tool' } }), { highRisk: false });
    // Why it paused is in the summary at the top (issue 45), before the arguments in full; the
    // decision bar is last, sticky at the bottom of the pane (in view wherever the detail is scrolled).
    const order = ['detail-tool', 'pause-reason', 'args-tree', 'grant-open', 'fingerprint-full', 'approve'].map((id) => q(id)!);
    for (let i = 1; i < order.length; i++) {
      expect(order[i - 1].compareDocumentPosition(order[i]) & Node.DOCUMENT_POSITION_FOLLOWING, `${order[i - 1].dataset.testid} before ${order[i].dataset.testid}`).toBeTruthy();
    }
    const labels = [...target.querySelectorAll('.ids dt')].map((dt) => dt.textContent);
    expect(labels).toEqual(['Agent', 'Engine', 'Paused at', 'Thread', 'Resource', 'Run', 'Tool call', 'Fingerprint']);
    // The date too, not only the time.
    expect(q('detail-paused-at')!.textContent).toMatch(/Jan/);
  });

  it("leads a coding agent's call with what it would do in its own terms, as text, before its arguments", () => {
    const bash = render(makeItem({ engine: 'claude-code', source: 'claude-code', toolName: 'Bash', args: { command: 'rm -rf build/ && echo <b>done</b>' } }));
    const line = bash.q('detail-tool-line')!;
    expect(text(line)).toBe('$ rm -rf build/ && echo <b>done</b>');
    expect(line.querySelector('b')).toBeNull();
    expect(line.compareDocumentPosition(bash.q('args-tree')!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // Longer than the row's line, still bounded.
    const long = render(makeItem({ engine: 'codex', source: 'codex', toolName: 'shell', args: { command: ['echo', 'z'.repeat(100_000)] } })).q('detail-tool-line')!;
    expect(text(long)).toBe(`$ echo ${'z'.repeat(393)}…`);
    // Other calls, and odd arguments: no such line.
    expect(render(makeItem()).q('detail-tool-line')).toBeNull();
    expect(render(makeItem({ source: 'claude-code', engine: 'claude-code', toolName: 'Bash', args: { command: 1 } })).q('detail-tool-line')).toBeNull();
  });

  it('reads a suspended call as "The agent asks: …" once, with its answer form and a way to decline', async () => {
    const item = makeItem({
      id: 's1',
      kind: 'suspend',
      toolName: 'ask_operator',
      args: { question: 'Which region?' },
      suspendPayload: { question: 'Which region?' },
      resumeSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
      allowed: ['resume', 'decline'],
    });
    const { target, q, backend } = render(item);
    expect(text(q('detail-question'))).toBe('The agent asks: Which region?');
    // Once on screen: the arguments and the payload are folded away.
    const json = q('suspend-json') as HTMLDetailsElement;
    expect(json.tagName).toBe('DETAILS');
    expect(json.open).toBe(false);
    expect(text(json.querySelector('summary'))).toBe('Arguments and suspend payload');
    expect(q('resume-form')).not.toBeNull();
    expect(text(target.querySelector('.or-decline'))).toBe('Or decline to answer');
    const input = q('decline-reason') as HTMLInputElement;
    expect(target.querySelectorAll('[data-testid="decline-preset"]')).toHaveLength(0);
    input.value = 'cannot say';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    q('decline')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'decline').map((c) => c.args.slice(0, 1).concat(c.args.slice(2)))).toEqual([['s1', 'cannot say']]);
  });

  it('offers no decline for a suspended call its engine cannot decline, and shows a payload without a question as it is', () => {
    const item = makeItem({ kind: 'suspend', toolName: 'ask', args: {}, suspendPayload: { options: ['a', 'b'] }, allowed: ['resume'] });
    const { q } = render(item);
    expect(q('detail-question')).toBeNull();
    expect(q('suspend-payload')).not.toBeNull();
    expect(q('decline-reason')).toBeNull();
  });

  it('offers "ask me again later" as its own control, and always allow says it approves this call too', async () => {
    const { q, target } = render(makeItem({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() }), { highRisk: false });
    expect(text(target.querySelector('.snooze-label'))).toBe('Ask me again later:');
    expect(target.querySelector('.snooze')!.getAttribute('aria-label')).toBe('Ask me again later: move the deadline later');
    expect(text(q('grant-open'))).toBe('Approve and always allow…');
    q('grant-open')!.click();
    await settle();
    expect(text(q('grant-also-this-call'))).toBe('Saving approves this call at once, then every later call the rule covers.');
    expect(text(q('grant-save'))).toBe('Approve this call and always allow…');
  });
});

describe('Detail: what became of a decided call', () => {
  const fp = 'sha256:' + 'ab'.repeat(32);
  const sentence = (item: QueueItem) => text(render(item).q('decision-summary'));

  it('says it in one sentence: what, by whom, when, why, and where the delivery stands', () => {
    const declined = makeItem({
      state: 'delivered',
      allowed: [],
      decision: { ...decision('decline', fp, 'wrong record', null), delivery: 'delivered', operator: 'alice (web)', decidedAt: '2025-01-01T10:02:00Z' },
    });
    const when = render(declined).q('decision-time')!.textContent!;
    expect(when).toMatch(/Jan/);
    expect(sentence(declined)).toBe(`Declined by alice (web) at ${when} — reason: wrong record · delivered to the engine`);
    // No "DELIVERY: DELIVERED / STATE: DELIVERED" badges any more.
    expect(render(declined).q('decision-result')!.querySelectorAll('.badge')).toHaveLength(0);

    expect(sentence(makeItem({ state: 'decided', allowed: [], decision: makeAwaitingDecision() }))).toMatch(/^Approved by web at .+ · not delivered to the engine yet$/);
    expect(sentence(makeItem({ state: 'failed', allowed: [], decision: { ...decision('resume', fp, null, {}), delivery: 'failed' } }))).toMatch(
      /^Answered \(resumed\) by web at .+ · the engine answered with an error$/,
    );
    expect(sentence(makeItem({ state: 'interrupted', allowed: [], decision: { ...decision('edit', fp, null, {}), delivery: 'delivered' } }))).toMatch(
      /^Approved with edited arguments by web at .+ · interrupted while the tool ran \(never run again\)$/,
    );
    const expired = makeItem({ state: 'delivered', allowed: [], decision: { ...decision('decline', fp, 'expired', null), delivery: 'delivered', expiredAfterSecs: 60 } });
    expect(sentence(expired)).toMatch(/^Expired after 1 min — nobody decided \(.+\) · delivered to the engine$/);
  });

  it('shows the operator and the reason as text, their hidden characters marked', () => {
    const item = makeItem({
      state: 'delivered',
      allowed: [],
      decision: { ...decision('decline', fp, '<img src=x onerror=alert(1)>\u202E', null), delivery: 'delivered', operator: '<b>eve</b> (web)' },
    });
    const { q } = render(item);
    const summary = q('decision-summary')!;
    expect(summary.querySelector('img, b')).toBeNull();
    expect(text(q('decision-operator'))).toBe('<b>eve</b> (web)');
    expect(text(q('decision-reason'))).toBe('<img src=x onerror=alert(1)>\\u{202E}');
  });
});
