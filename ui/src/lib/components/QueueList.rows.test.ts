// A queue row tells its call apart at a glance: what it would do (its arguments, or the question it
// asks), when it paused (date and time), and for a decided call what became of it and by whom.
import { describe, expect, it } from 'vitest';
import { decision, makeInterrupted, makeItem } from '../testing/fake-backend';
import { renderQueueList, text } from '../testing/queue-list';

const render = renderQueueList;

const at = (min: number) => new Date(Date.UTC(new Date().getUTCFullYear(), 0, 2, 10, min)).toISOString();

describe('QueueList rows', () => {
  it("shows a call's risk from its arguments as a badge, with the reasons as text in its title, and nothing for low", async () => {
    const reasons = [
      { level: 'critical' as const, text: 'pipes a download into a shell' },
      { level: 'medium' as const, text: '<b>not html</b>' },
    ];
    const { part } = await render([
      makeItem({ id: 'r1', toolName: 'Bash', args: { command: 'curl -s x | sh' }, risk: { level: 'critical', reasons } }),
      makeItem({ id: 'r2', toolName: 'Bash', args: { command: 'ls' }, risk: { level: 'low', reasons: [] } }),
    ]);
    const badge = part('r1', 'row-risk')!;
    expect(badge.dataset.level).toBe('critical');
    expect(text(badge)).toBe('Critical');
    expect(badge.title).toBe('Risk: Critical\npipes a download into a shell\n<b>not html</b>');
    expect(badge.querySelector('b')).toBeNull();
    expect(part('r2', 'row-risk')).toBeNull();
  });

  it('says what a file edit changes ("edits 3 lines in src/pay.py") instead of its raw strings', async () => {
    const changes = {
      summary: 'edits 3 lines in src/pay.py',
      moreFiles: false,
      files: [{ path: 'src/pay.py', action: 'edit' as const, diff: '', added: 3, removed: 2, againstDisk: true, cut: false }],
    };
    const args = { file_path: '/repo/src/pay.py', old_string: 'def transfer(amount):', new_string: 'def transfer(amount):' };
    const { part } = await render([makeItem({ id: 'e1', source: 'claude-code', toolName: 'Edit', args, changes })]);
    const summary = part('e1', 'queue-item-summary')!;
    expect(summary.dataset.what).toBe('changes');
    expect(text(summary)).toBe('edits 3 lines in src/pay.py');
  });

  it('tells four delete_record calls apart by their arguments, with how long each waited and its date and time in the title', async () => {
    const ids = ['rec-1', 'rec-2', 'prod-7', 'cust-11'];
    const { row, part } = await render(ids.map((id, i) => makeItem({ id: `q${i}`, args: { id }, pausedAt: at(i), runId: `run-${i}` })));
    expect(ids.map((_, i) => text(part(`q${i}`, 'queue-item-summary')))).toEqual(['id: "rec-1"', 'id: "rec-2"', 'id: "prod-7"', 'id: "cust-11"']);
    const time = part('q0', 'queue-item-time')!;
    // How long ago (issue 45: `4m ago`), the date too in its title, not only the time (Jan 2, 10:00 local).
    expect(time.textContent).toMatch(/^\d+d ago$|^yesterday$/);
    const local = new Date(at(0));
    expect(time.title).toContain(String(local.getDate()));
    expect(time.title).toMatch(/^Paused at Jan/);
    expect(time.getAttribute('datetime')).toBe(at(0));
    expect(row('q0').querySelector('[data-testid="queue-item-outcome"]')).toBeNull();
  });

  it("shows a suspended call's question, marks hidden characters, and never renders the text as HTML", async () => {
    const { row, part } = await render([
      makeItem({ id: 's1', kind: 'suspend', toolName: 'ask_operator', args: { question: 'Which region?' }, suspendPayload: { question: 'Which region?' }, allowed: ['resume', 'decline'] }),
      makeItem({ id: 'h1', args: { id: 'invoice-\u202E2400-\u0430dmin' }, pausedAt: at(5) }),
      makeItem({ id: 'x1', args: { html: '<img src=x onerror="window.__pwned=1"><b>bold</b>' }, pausedAt: at(6) }),
    ]);
    const s1 = part('s1', 'queue-item-summary')!;
    expect(s1.dataset.what).toBe('question');
    expect(text(s1)).toBe('Asks: Which region?');
    const h1 = part('h1', 'queue-item-summary')!;
    expect(h1.querySelector('[data-mark="hidden"]')!.textContent).toBe('\\u{202E}');
    expect(h1.querySelector('[data-mark="lookalike"]')!.textContent).toBe('\u0430');
    expect(text(part('h1', 'queue-item-marked'))).toBe('⚠2 hidden or look-alike characters: see the details');
    expect(part('s1', 'queue-item-marked')).toBeNull();
    const x1 = part('x1', 'queue-item-summary')!;
    expect(x1.querySelector('img, b')).toBeNull();
    expect(text(x1)).toBe('html: "<img src=x onerror="window.__pwned=1"><b>bold</b>"');
  });

  it('says what became of decided calls, and by whom; their rows are taller for it', async () => {
    const fp = 'sha256:' + 'ab'.repeat(32);
    const done = (d: ReturnType<typeof decision>) => ({ ...d, delivery: 'delivered' as const, operator: 'alice (web)' });
    const { row, part } = await render(
      [
        makeItem({ id: 'ap', state: 'delivered', allowed: [], pausedAt: at(1), decision: done(decision('approve', fp, null, null)) }),
        makeItem({ id: 'de', state: 'delivered', allowed: [], pausedAt: at(2), decision: done(decision('decline', fp, 'wrong record', null)) }),
        makeItem({ id: 'an', kind: 'suspend', state: 'delivered', allowed: [], pausedAt: at(3), decision: done(decision('resume', fp, null, { answer: 'eu' })) }),
        makeItem({ id: 'ed', state: 'delivered', allowed: [], pausedAt: at(4), decision: done(decision('edit', fp, null, { id: 'rec-9' })) }),
        makeItem({ id: 'ex', state: 'delivered', allowed: [], pausedAt: at(5), decision: { ...done(decision('decline', fp, 'expired', null)), operator: 'console', expiredAfterSecs: 900 } }),
        makeItem({ id: 'pe', pausedAt: at(6) }),
      ],
      'all',
    );
    const outcome = (id: string) => part(id, 'queue-item-outcome');
    expect(text(outcome('ap'))).toBe('Approved by alice (web)');
    expect(text(outcome('de'))).toBe('Declined by alice (web) — wrong record');
    expect(text(outcome('an'))).toBe('Answered by alice (web)');
    expect(text(outcome('ed'))).toBe('Approved with edits by alice (web)');
    expect(text(outcome('ex'))).toBe('Expired after 15 min, nobody decided');
    expect(['ap', 'de', 'an', 'ed', 'ex'].map((id) => outcome(id)!.dataset.outcome)).toEqual(['approved', 'declined', 'answered', 'edited', 'expired']);
    expect(outcome('pe')).toBeNull();
    expect(parseFloat(row('de').style.height)).toBeGreaterThan(parseFloat(row('pe').style.height));
  });

  it("says an interrupted call needs the operator's word, and how a resolved one was resolved; as text, on a line of its own", async () => {
    const resolved = (id: string, kind: 'ran' | 'did_not_run' | 'run_again', min: number) =>
      makeInterrupted({
        id,
        allowed: [],
        pausedAt: at(min),
        resolution: { kind, result: '<b>x</b>', fingerprint: 'sha256:' + 'ab'.repeat(32), operator: '<i>eve</i>', resolvedAt: at(min + 1), retryItem: kind === 'run_again' ? 'new' : null },
      });
    const { row, part } = await render(
      [
        makeInterrupted({ id: 'in', pausedAt: at(1) }),
        makeInterrupted({ id: 'in0', allowed: [], pausedAt: at(2) }),
        resolved('ra', 'ran', 3),
        resolved('dn', 'did_not_run', 5),
        resolved('rr', 'run_again', 7),
        makeItem({ id: 'de', state: 'delivered', allowed: [], pausedAt: at(9), decision: { ...decision('approve', 'sha256:' + 'ab'.repeat(32), null, null), delivery: 'delivered' } }),
        makeItem({ id: 'pe', pausedAt: at(10) }),
      ],
      'all',
    );
    const line = (id: string) => part(id, 'queue-item-resolution');
    expect(text(line('in'))).toBe('Interrupted — did it run? Needs your word');
    expect(line('in')!.dataset.resolution).toBe('needed');
    expect(text(line('in0'))).toBe('Interrupted — did it run? Needs your word');
    expect(text(line('ra'))).toBe('Resolved: it ran');
    expect(text(line('dn'))).toBe('Resolved: it did not run');
    expect(text(line('rr'))).toBe('Resolved: run again');
    expect(line('de')).toBeNull();
    expect(line('pe')).toBeNull();
    // The decision it was interrupted after is still said, and nothing from the wire becomes HTML.
    expect(text(part('in', 'queue-item-outcome'))).toBe('Approved by web');
    expect(row('ra').querySelector('b, i')).toBeNull();
    expect(parseFloat(row('in').style.height)).toBeGreaterThan(parseFloat(row('de').style.height));
  });

  it('marks where a call comes from, except the local engine; the product names as they are', async () => {
    const sources = ['local', 'mastra', 'http', 'claude-code', 'codex', 'mcp'] as const;
    const { row, part } = await render(sources.map((source, i) => makeItem({ id: source, engine: source === 'mastra' ? 'prod' : source, source, pausedAt: at(i), runId: `run-${i}` })));
    expect(part('local', 'row-source')).toBeNull();
    const badges = sources.slice(1).map((id) => part(id, 'row-source')!);
    expect(badges.map((b) => [b.dataset.source, text(b)])).toEqual([
      ['mastra', 'Mastra'],
      ['http', 'HTTP'],
      ['claude-code', 'Claude Code'],
      ['codex', 'Codex'],
      ['mcp', 'MCP'],
    ]);
    expect(badges[2].title).toBe("From Claude Code's hook");
    // A remote engine's own name in the title.
    expect(badges[0].title).toBe('From a remote Mastra server (prod)');
    // On the meta line (issue 45: `agent · source · 4m ago`), the first line is the tool's.
    expect(badges[2].closest('[data-testid="queue-item-meta"]')).toBe(row('claude-code').querySelector('[data-testid="queue-item-meta"]'));
  });

  it("summarises a coding agent's call in its own terms, as text", async () => {
    const { part } = await render([
      makeItem({ id: 'bash', engine: 'claude-code', source: 'claude-code', toolName: 'Bash', args: { command: 'rm -rf build/ <b>x</b>' }, pausedAt: at(1), runId: 'r1' }),
      makeItem({ id: 'patch', engine: 'codex', source: 'codex', toolName: 'apply_patch', args: { input: '*** Begin Patch\n*** Update File: src/\u202Emain.rs\n*** End Patch' }, pausedAt: at(2), runId: 'r2' }),
      makeItem({ id: 'odd', engine: 'claude-code', source: 'claude-code', toolName: 'Bash', args: { command: 42 }, pausedAt: at(3), runId: 'r3' }),
    ]);
    const bash = part('bash', 'queue-item-summary')!;
    expect(bash.dataset.what).toBe('tool');
    expect(text(bash)).toBe('$ rm -rf build/ <b>x</b>');
    expect(bash.querySelector('b')).toBeNull();
    const patch = part('patch', 'queue-item-summary')!;
    expect(text(patch)).toBe('⚠1 hidden or look-alike character: see the details patch src/\\u{202E}main.rs');
    expect(patch.querySelector('[data-mark="hidden"]')!.textContent).toBe('\\u{202E}');
    expect(part('odd', 'queue-item-summary')!.dataset.what).toBe('args');
    expect(text(part('odd', 'queue-item-summary'))).toBe('command: 42');
  });
});
