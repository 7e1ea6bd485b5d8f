// The queue and detail in Japanese: what the operator reads follows the language setting, at once,
// while nothing from the wire (tool names, agent ids, fingerprints, JSON) is translated.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { shortFingerprint } from '../backend/backend';
import { backendContext } from '../backend/context';
import { en } from '../i18n/en';
import { i18n } from '../i18n/index.svelte';
import { ja } from '../i18n/ja';
import { slots } from '../i18n/words';
import { checkJson } from '../json-schema';
import { NotifyWarning } from '../notify-warning.svelte';
import { FakeBackend, makeAwaitingDecision, makeInterrupted, makeItem } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import Console from './Console.svelte';
import Detail from './Detail.svelte';
import ResumeForm from './ResumeForm.svelte';

afterEach(() => {
  i18n.set('system');
  localStorage.clear();
});

async function renderConsole(backend: FakeBackend) {
  const { target } = mountInBody(Console, { props: { notifyWarning: new NotifyWarning() }, context: backendContext(backend) });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  const all = (sel: string) => [...target.querySelectorAll(sel)] as HTMLElement[];
  return { target, q, all };
}

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/**
 * The Latin words (3 letters or more) left on screen, in text and in labels, titles and placeholders,
 * once the given wire data (names, ids, fingerprints, JSON) is taken out.
 */
function englishLeft(root: HTMLElement, wire: string[]): string[] {
  const attrs = [...root.querySelectorAll('*')].flatMap((el) => ['aria-label', 'title', 'placeholder'].map((a) => el.getAttribute(a) ?? ''));
  let all = [root.textContent ?? '', ...attrs].join('\n');
  for (const w of [...wire].sort((a, b) => b.length - a.length)) all = all.split(w).join(' ');
  return [...new Set(all.match(/[A-Za-z]{3,}/g) ?? [])];
}

/** What the fake backend's calls carry from the wire, the keys' names on the keyboard, and the product names of the source filter. */
const WIRE = ['Approval Console', 'delete_record', 'Demo agent', 'demo', 'local', 'run-1', 'rec-1', 'sha256', 'JSON', 'Enter', 'Esc', 'Home', 'End', 'Space', 'Mastra', 'LangGraph', 'HTTP', 'Claude Code', 'Codex', 'Gemini CLI', 'MCP', 'ACP', 'OpenAI Agents', 'AI SDK', 'ADK', 'LangChain', 'AG-UI', 'A2A'];
const wireOf = (...items: { fingerprint: string; toolCallId: string }[]) => [...WIRE, ...items.flatMap((i) => [i.fingerprint, shortFingerprint(i.fingerprint), i.toolCallId])];

describe('the queue in Japanese', () => {
  it('names the list, its tabs, filters and rows in Japanese, and the data as it came', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'q1' }));
    const { target, q, all } = await renderConsole(backend);

    expect(text(q('#tab-queue'))).toContain('キュー');
    expect(all('[data-testid="state-tab"]').map((t) => t.firstChild?.textContent?.trim())).toEqual(['保留中', '配信待ち', '決定済み', '期限切れ', '消失', 'すべて']);
    expect((q('[data-testid="queue-search"]') as HTMLInputElement).placeholder).toBe('ツール、エージェント、引数');
    expect(text(q('[data-testid="queue-filters"]'))).toContain('エンジン');
    expect(q('[role="listbox"]')!.getAttribute('aria-label')).toBe('呼び出し（新しい順）');
    expect(text(q('.placeholder'))).toBe('確認する呼び出しを選択してください。');
    const row = q('[data-testid="queue-item"]')!;
    expect(text(row)).toContain('delete_record');
    // How long it waited, in Japanese (the row's badges are for exceptions only: none here).
    expect(text(row)).toMatch(/\d+日前|昨日|今/);
    expect(text(row)).toContain('Demo agent');

    const words = text(target);
    for (const english of ['Calls', 'Refresh', 'Pending', 'Search', 'Filters', 'Clear', 'Select a call', 'Shortcuts', 'approval']) {
      expect(words, english).not.toContain(english);
    }
  });

  it('shows a call in Japanese: labels, badges, decision controls and preset reasons; the preset sent is the Japanese text', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'q1', expiresAt: new Date(Date.now() + 20 * 60_000 + 30_000).toISOString() }));
    const { target, q, all } = await renderConsole(backend);
    all('[data-testid="queue-item"]')[0].click();
    await settle();

    const detail = q('[data-testid="detail"]')!;
    const labels = [...detail.querySelectorAll('.meta dt')].map((dt) => dt.textContent);
    expect(labels).toEqual(['エージェント', 'エンジン', '一時停止日時', 'スレッド', 'リソース', '実行', 'ツール呼び出し', 'フィンガープリント']);
    expect(text(q('[data-testid="detail-expiry"]'))).toMatch(/^期限 残り 21 分/);
    expect(text(detail.querySelector('.snooze-label'))).toBe('後でもう一度確認:');
    expect(text(q('[data-testid="detail-state"]'))).toBe('保留中');
    expect(text(q('[data-testid="detail-countdown"]'))).toBe('残り 21 分');
    expect(all('[data-testid="snooze"]').map((b) => b.textContent)).toEqual(['+15 分', '+1 時間', '+1 日']);
    expect(text(q('[data-testid="approve"]'))).toBe('承認');
    expect(text(q('[data-testid="decline"]'))).toBe('拒否');
    expect(text(q('[data-testid="raw-toggle"]'))).toBe('JSON で表示');
    expect(text(detail.querySelector('.runs'))).toMatch(/^上記の引数で delete_record を実行します（フィンガープリント \S+）$/);
    const presets = all('[data-testid="decline-preset"]');
    expect(presets.map((b) => b.textContent)).toEqual(Object.values(ja.detail.presets));
    expect(presets.map((b) => b.dataset.preset)).toEqual(['notAuthorised', 'wrongTarget', 'tooRisky']);

    // The product names in the source filter are data ("OpenAI Agents"), not words to translate.
    const words = text(target).replace('OpenAI Agents', '');
    for (const english of ['Agent', 'Arguments', 'Fingerprint', 'Approve', 'Decline', 'Reason', 'Not authorised', 'expires in', 'Copy']) {
      expect(words, english).not.toContain(english);
    }

    presets[2].click();
    flushSync();
    expect((q('[data-testid="decline-reason"]') as HTMLInputElement).value).toBe('リスクが高すぎます');
    q('[data-testid="decline"]')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'decline').map((c) => c.args[2])).toEqual(['リスクが高すぎます']);
  });

  it('leaves no English word on screen but the data: a run, a call to approve and edit, one to answer, the help', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const approval = makeItem({ id: 'q1', allowed: ['approve', 'decline', 'edit'], threadId: 'thread-7', resourceId: 'user-9', expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      chain: [{ agentId: 'supervisor', toolName: 'delegate', toolCallId: 'call-up' }] });
    const other = makeItem({ id: 'q2', pausedAt: '2024-12-31T10:00:00Z' });
    const suspended = makeItem({ id: 's1', kind: 'suspend', runId: 'run-2', suspendPayload: { question: 'which city?' }, pausedAt: '2025-01-01T09:00:00Z',
      resumeSchema: { type: 'object', properties: { city: { type: 'string', minLength: 2, format: 'date' }, n: { type: 'integer', maximum: 9 },
        mode: { enum: ['fast', 'slow'] }, tags: { type: 'array', items: { type: 'string' }, maxItems: 2 } }, required: ['city'] } });
    for (const i of [approval, other, suspended]) backend.add(i);
    const { target, q, all } = await renderConsole(backend);
    const wire = [...wireOf(approval, other, suspended), 'thread-7', 'user-9', 'supervisor', 'delegate', 'call-up', 'run-2', 'which city?', 'question',
      'city', 'fast', 'slow', 'tags', 'mode', 'null', 'YYYY-MM-DD', 'id'];

    // The list with a run of two, its "approve all" asked.
    all('[data-testid="run-approve-all"]')[0].click();
    await settle();
    expect(englishLeft(target, wire)).toEqual([]);
    q('[data-testid="batch-cancel"]')!.click();

    // A call to approve, its raw JSON, the argument editor.
    all('[data-testid="queue-item"]').find((r) => r.dataset.id === 'q1')!.click();
    await settle();
    q('[data-testid="raw-toggle"]')!.click();
    flushSync();
    q('[data-testid="edit-args-open"]')!.click();
    await settle();
    type(q('[data-testid="edit-text"]'), '{"id": "rec-2", "more": 9007199254740993}');
    await settle();
    expect(q('[data-testid="edit-inexact"]')).not.toBeNull();
    const edited = text(q('[data-testid="edit-fingerprint-full"]'));
    expect(edited).toMatch(/^sha256:/);
    expect(englishLeft(target, [...wire, edited, shortFingerprint(edited), 'RFC', 'rec-2', 'more'])).toEqual([]);

    // A call to answer, its form sent empty.
    all('[data-testid="queue-item"]').find((r) => r.dataset.id === 's1')!.click();
    await settle();
    q('[data-testid="resume-submit"]')!.click();
    await settle();
    expect(q('[data-testid="field-error"]')).not.toBeNull();
    expect(englishLeft(target, wire)).toEqual([]);

    // The help.
    window.dispatchEvent(new KeyboardEvent('keydown', { key: '?', bubbles: true, cancelable: true }));
    flushSync();
    expect(englishLeft(q('[data-testid="shortcut-help"]')!, wire)).toEqual([]);
  });

  it("names a call's source and a hook's context in Japanese, the product names as they are", async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const hook = makeItem({ id: 'h1', engine: 'claude-code', source: 'claude-code', agentId: 'claude-code', agentName: null, toolName: 'Bash', args: { command: 'make deploy' },
      context: { event: 'PreToolUse', cwd: '/home/dev/shop' }, pausedAt: '2025-01-01T11:00:00Z', runId: 'run-h' });
    const local = makeItem({ id: 'q1' });
    backend.add(hook, local);
    const { target, q, all } = await renderConsole(backend);

    const source = q('[data-testid="filter-source"]') as HTMLSelectElement;
    expect(text(source.closest('label')!.firstChild as Element)).toBe('呼び出し元');
    expect([...source.options].map((o) => o.textContent)).toEqual(['すべての呼び出し元', 'ローカルエンジン', 'Mastra', 'LangGraph', 'AG-UI', 'A2A', 'HTTP エージェント', 'Claude Code', 'Codex', 'Gemini CLI', 'MCP', 'ACP', 'OpenAI Agents', 'AI SDK', 'ADK', 'LangChain']);
    const row = (id: string) => all('[data-testid="queue-item"]').find((r) => r.dataset.id === id)!;
    const badge = row('h1').querySelector<HTMLElement>('[data-testid="row-source"]')!;
    expect([badge.textContent, badge.title]).toEqual(['Claude Code', 'Claude Code のフックから']);
    expect(row('q1').querySelector('[data-testid="row-source"]')).toBeNull();

    row('h1').click();
    await settle();
    expect(text(q('[data-testid="detail-source"]'))).toBe('Claude Code');
    const labels = [...q('[data-testid="detail"]')!.querySelectorAll('.meta dt')].map((dt) => dt.textContent);
    expect(labels.slice(0, 4)).toEqual(['エージェント', 'エンジン', '作業ディレクトリ', 'フックイベント']);
    expect(text(q('[data-testid="detail-hook-event"]'))).toBe('PreToolUse');
    const wire = [...wireOf(hook, local), 'claude-code', 'Bash', 'make deploy', 'command', 'PreToolUse', '/home/dev/shop', 'run-h'];
    expect(englishLeft(target, wire)).toEqual([]);

    row('q1').click();
    await settle();
    const localBadge = q('[data-testid="detail-source"]')!;
    expect([localBadge.textContent, localBadge.title]).toEqual(['ローカルエンジン', 'コンソールのローカルエンジンから']);
    expect(q('[data-testid="detail-cwd"]')).toBeNull();
  });

  it('shows the decision taken and its delivery in Japanese', () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const item = makeItem({ id: 'q1', state: 'decided', allowed: [], decision: makeAwaitingDecision({ reason: 'too late' }) });
    const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
    flushSync();
    const result = target.querySelector('[data-testid="decision-result"]')!;
    expect(result.getAttribute('aria-label')).toBe('決定');
    expect(text(result.querySelector('[data-testid="decision-summary"]'))).toMatch(/^承認済み（web、.+） — 理由: too late・エンジンへはまだ配信されていません$/);
    expect(text(result.querySelector('[data-testid="decision-delivery"]'))).toBe('エンジンへはまだ配信されていません');
    expect(text(result.querySelector('[data-testid="awaiting-delivery"]'))).toContain('配信待ちです。');
    expect(text(result.querySelector('[data-testid="decision-reason"]'))).toBe('too late');
    expect(text(result)).not.toMatch(/Awaiting delivery|Attempts|Declined|Reason/);
    const serverWords = [item.decision!.lastError!, 'too late', 'Demo agent', 'operator', 'alice'];
    expect(englishLeft(target, [...wireOf(item), ...serverWords, item.decision!.operator])).toEqual([]);
  });

  it('says in Japanese what became of an interrupted call, and what can be said of it', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const open = makeInterrupted({ id: 'q1', allowed: ['ran', 'did_not_run', 'run_again'] });
    backend.add(open);
    const { target, q } = await renderConsole(backend);
    q('[data-testid="state-tab"][data-tab="decided"]')!.click();
    await settle();
    q('[data-testid="queue-item"][data-id="q1"]')!.click();
    await settle();
    expect(text(q('[data-testid="queue-item-resolution"]'))).toBe('中断 — 実行されましたか？ 判断が必要です');
    expect(text(q('[data-testid="interrupted-what"]'))).toContain('実行されたかどうかは分かりません');
    expect(text(q('[data-testid="resolve-ran"]'))).toBe('実行された');
    q('[data-testid="resolve-run-again"]')!.click();
    await settle();
    expect(text(q('[data-testid="run-again-confirm"]'))).toBe('delete_record をもう一度実行しますか？');
    expect(englishLeft(target, [...wireOf(open), 'web'])).toEqual([]);
    q('[data-testid="run-again-confirm"]')!.click();
    await settle();
    expect(text(q('[data-testid="resolution-summary"]'))).toMatch(/^web が .+ に解決: もう一度実行$/);
    expect(text(q('[data-testid="queue-item"][data-id="q1"] [data-testid="queue-item-resolution"]'))).toBe('解決済み: もう一度実行');
    expect(englishLeft(target, [...wireOf(open), 'web', 'q1-again'])).toEqual([]);
  });

  it('names hidden and look-alike characters in Japanese, the Unicode names as they are', () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const item = makeItem({ id: 'q1', args: { path: '/tmp/\u202e', host: 'p\u0430ypal.com' } });
    const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
    flushSync();
    const q = (id: string) => target.querySelector(`[data-testid="${id}"]`);
    expect(text(q('args-warnings-headline'))).toBe('引数に不可視文字 1 個、紛らわしい文字 1 個');
    expect(target.querySelector('[data-mark="hidden"]')!.getAttribute('title')).toBe('U+202E RIGHT-TO-LEFT OVERRIDE（不可視）');
    expect(target.querySelector('[data-mark="lookalike"]')!.getAttribute('title')).toBe("U+0430 CYRILLIC SMALL LETTER A: 'a' に似た文字");
    expect(text(q('args-warnings'))).toContain('最初の位置: /path');
    i18n.set('en');
    flushSync();
    expect(text(q('args-warnings-headline'))).toBe('1 hidden character, 1 look-alike character in the arguments');
    expect(target.querySelector('[data-mark="hidden"]')!.getAttribute('title')).toBe('U+202E RIGHT-TO-LEFT OVERRIDE (invisible)');
  });

  it('lists the keyboard shortcuts in Japanese, the keys as they are', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const { q } = await renderConsole(backend);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: '?', bubbles: true, cancelable: true }));
    flushSync();
    const help = q('[data-testid="shortcut-help"]')!;
    expect(text(help.querySelector('h2'))).toBe('キーボードショートカット');
    expect([...help.querySelectorAll('dd')].map((dd) => dd.textContent)).toEqual(Object.values(ja.queue.shortcuts));
    expect([...help.querySelectorAll('kbd')].map((k) => k.textContent)).toContain('a');
    expect(text(help)).toContain('または');
    expect(text(q('[data-testid="shortcut-help-close"]'))).toBe('閉じる');
    expect(text(help)).not.toMatch(/Keyboard shortcuts|Next call|Close| or /);
  });

  it('says it again in the other language when the language changes while shown', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'q1' }));
    const { q, all } = await renderConsole(backend);
    all('[data-testid="queue-item"]')[0].click();
    await settle();
    expect(text(q('#tab-queue'))).toMatch(/^Queue/);
    expect(text(q('[data-testid="approve"]'))).toBe('Approve');
    expect(text(q('[data-testid="fingerprint-check"]'))).toBe('✓ verified');

    i18n.set('ja');
    flushSync();
    expect(text(q('#tab-queue'))).toMatch(/^キュー/);
    expect(text(q('[data-testid="approve"]'))).toBe('承認');
    expect(text(q('[data-testid="fingerprint-check"]'))).toBe('✓ 確認済み');
    expect(all('[data-testid="decline-preset"]')[0].textContent).toBe('権限がありません');
    expect(all('[data-testid="state-tab"]')[0].firstChild?.textContent?.trim()).toBe('保留中');

    // A note left by the keyboard follows too.
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'r', bubbles: true, cancelable: true }));
    flushSync();
    expect(text(q('[data-testid="triage-note"]'))).toBe(
      'r はここでは使えません: この呼び出しは応答ではなく承認（a）を求めています。Esc を押すまで文字キーを一時停止します。続けて入力した文字は何もしません。',
    );
    i18n.set('en');
    flushSync();
    expect(text(q('[data-testid="triage-note"]'))).toBe(
      'r does nothing here: this call asks for approval (a), not for an answer. The letter keys are paused until you press Esc, so what you type next does nothing.',
    );
    expect(text(q('[data-testid="approve"]'))).toBe('Approve');
  });
});

describe('the resume form in Japanese', () => {
  const schema = {
    type: 'object',
    properties: {
      code: { type: 'string', title: 'Code', minLength: 3, maxLength: 8 },
      count: { type: 'integer', minimum: 1 },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['code'],
  };

  it('gives hints, errors and buttons in Japanese, and follows a change of language with what was typed kept', async () => {
    i18n.set('ja');
    const submit = vi.fn(async () => null);
    const { target } = mountInBody(ResumeForm, { props: { schema, busy: false, submit } });
    flushSync();
    const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
    expect(text(q('[data-testid="resume-submit"]'))).toBe('応答を送信');
    expect(text(q('[data-testid="resume-mode"]'))).toBe('JSON で編集');
    expect(text(q('[data-field-path="/code"] .hint'))).toBe('3〜8 文字');
    expect(text(q('[data-testid="add-item"]'))).toContain('項目を追加');

    type(q('[data-field-path="/code"] input'), 'ab');
    q('[data-testid="resume-submit"]')!.click();
    await settle({ macrotasks: false });
    expect(submit).not.toHaveBeenCalled();
    expect(text(q('[data-testid="field-error"][data-path="/code"]'))).toBe('3 文字以上が必要です。');
    expect(text(target)).not.toMatch(/Needs at least|Send answer|characters/);

    i18n.set('en');
    flushSync();
    expect(text(q('[data-testid="field-error"][data-path="/code"]'))).toBe('Needs at least 3 characters.');
    expect(text(q('[data-field-path="/code"] .hint'))).toBe('3 to 8 characters');
    expect((q('[data-field-path="/code"] input') as HTMLInputElement).value).toBe('ab');
  });

  it('says in Japanese why a schema gets the raw JSON editor', () => {
    i18n.set('ja');
    const { target } = mountInBody(ResumeForm, { props: { schema: null, busy: false, submit: vi.fn(async () => null) } });
    flushSync();
    expect(text(target.querySelector('[data-testid="raw-reason"]'))).toBe('再開用スキーマが指定されていません。');
    expect(text(target.querySelector('label'))).toBe('再開用データ（JSON）');
  });

  it('checks values against a schema with Japanese messages', () => {
    i18n.set('ja');
    const s = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 }, e: { enum: ['a', 'b'] }, d: { type: 'string', format: 'date' } },
      required: ['x'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    };
    expect(checkJson(s, { n: 0.5, e: 'c', d: 'soon', z: 1 }).errors.map((e) => [e.path, e.message])).toEqual([
      ['/x', 'このフィールドは必須です。'],
      ['/n', '整数である必要があります。'],
      ['/n', '1 以上である必要があります。'],
      ['/e', '"a", "b" のいずれかである必要があります。'],
      ['/d', '日付（YYYY-MM-DD）である必要があります。'],
      ['', '不明なフィールド "z" があります。'],
    ]);
    expect(checkJson({ type: ['string', 'null'] }, 3).errors[0].message).toBe('テキストまたはnullである必要があります。');
  });
});

describe('the words of the queue, detail, arguments and resume sections', () => {
  /** Every leaf of a section with its text (functions called with sample arguments). */
  function texts(section: object, prefix: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const [k, v] of Object.entries(section)) {
      const key = `${prefix}.${k}`;
      if (typeof v === 'function') {
        let t: unknown;
        try {
          t = v(...[3, 4, 5].slice(0, v.length));
        } catch {
          t = v(...['a', 'b', 'c'].slice(0, v.length));
        }
        out.set(key, String(t));
      }
      else if (v !== null && typeof v === 'object') for (const [kk, vv] of texts(v, key)) out.set(kk, vv);
      else out.set(key, String(v));
    }
    return out;
  }
  const places = (s: string) => slots(s).flatMap((p) => (p.slot === undefined ? [] : [p.slot])).sort();

  it('have the same {places} in both languages', () => {
    for (const section of ['queue', 'detail', 'args', 'resume'] as const) {
      const jaTexts = texts(ja[section], section);
      for (const [key, english] of texts(en[section], section)) expect(places(jaTexts.get(key)!), key).toEqual(places(english));
    }
  });
});
