// The console in Japanese: the language picker in Settings (applied at once, stored, "system" showing
// what it resolves to), and the settings, engines, audit, grants and error banners in Japanese with
// no English words left but the names and codes that come from the wire.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { AuditEntry, DecisionRecord } from '../backend/backend';
import { backendContext } from '../backend/context';
import { Banners } from '../banners.svelte';
import { i18n, LANGUAGE_STORAGE_KEY } from '../i18n/index.svelte';
import { FakeBackend, makeEngine, makeGrant, makeItem, makeNotifyStatus } from '../testing/fake-backend';
import { makeAuditEntry } from '../testing/fixtures';
import { mountInBody, settle } from '../testing/mount';
import AuditView from './AuditView.svelte';
import EnginesView from './EnginesView.svelte';
import ErrorBanners from './ErrorBanners.svelte';
import GrantForm from './GrantForm.svelte';
import GrantsView from './GrantsView.svelte';
import SettingsView from './SettingsView.svelte';
import TokenScreen from './TokenScreen.svelte';

afterEach(() => {
  i18n.set('system');
  i18n.preferred = [];
  localStorage.clear();
});

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff]/;

/**
 * The Latin words (3 letters or more) left on screen, in text and in labels, titles and placeholders,
 * once the given wire data (names, codes, URLs, server messages) is taken out.
 */
function englishLeft(root: HTMLElement, wire: string[]): string[] {
  const attrs = [...root.querySelectorAll('*')].flatMap((el) => ['aria-label', 'title', 'placeholder'].map((a) => el.getAttribute(a) ?? ''));
  let all = [root.textContent ?? '', ...attrs].join('\n');
  for (const w of [...wire].sort((a, b) => b.length - a.length)) all = all.split(w).join(' ');
  return [...new Set(all.match(/[A-Za-z]{3,}/g) ?? [])];
}

function pick(input: HTMLElement | null) {
  const radio = input as HTMLInputElement;
  radio.checked = true;
  radio.dispatchEvent(new Event('change', { bubbles: true }));
  flushSync();
}

async function settings(backend = new FakeBackend()) {
  const { target } = mountInBody(SettingsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, tid };
}

describe('language picker', () => {
  it('switches the words at once when 日本語 is chosen, stores the choice and sets <html lang>; English brings them back', async () => {
    i18n.preferred = ['en-US'];
    const { target, tid } = await settings();
    const legend = tid('language-settings')!.querySelector('legend')!;
    expect(text(target.querySelector('h2'))).toBe('Settings');
    expect(text(legend)).toBe('Language');
    expect((tid('language-system') as HTMLInputElement).checked).toBe(true);
    expect(text(tid('language-system-now'))).toBe('(follows this computer: English now)');
    // Each language by its own name, in either language.
    const names = () => ['en', 'ja'].map((c) => text(tid(`language-${c}`)!.closest('label')));
    expect(names()).toEqual(['English', '日本語']);

    pick(tid('language-ja'));
    expect(text(target.querySelector('h2'))).toBe('設定');
    expect(text(legend)).toBe('言語');
    expect(text(tid('appearance-settings')!.querySelector('h3'))).toBe('外観');
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('ja');
    expect(document.documentElement.lang).toBe('ja');
    expect(i18n.choice).toBe('ja');
    expect((tid('language-ja') as HTMLInputElement).checked).toBe(true);
    expect(names()).toEqual(['English', '日本語']);
    expect(text(tid('language-system-now'))).toBe('（このコンピューターに合わせる: 現在は English）');

    pick(tid('language-en'));
    expect(text(target.querySelector('h2'))).toBe('Settings');
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('en');
    expect(document.documentElement.lang).toBe('en');
  });

  it('"System" follows the system: a Japanese one shows the console in Japanese and says so', async () => {
    i18n.preferred = ['ja-JP', 'en-US'];
    const { target, tid } = await settings();
    expect(i18n.choice).toBe('system');
    expect((tid('language-system') as HTMLInputElement).checked).toBe(true);
    expect(text(target.querySelector('h2'))).toBe('設定');
    expect(text(tid('language-system-now'))).toBe('（このコンピューターに合わせる: 現在は 日本語）');
    // Choosing English overrides it.
    pick(tid('language-en'));
    expect(text(target.querySelector('h2'))).toBe('Settings');
    expect(text(tid('language-system-now'))).toBe('(follows this computer: 日本語 now)');
  });
});

describe('in Japanese', () => {
  it('settings: notifications, time limits, desktop and appearance', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.notifyStatus = makeNotifyStatus({ available: false, lastError: 'dbus: name not provided', lastErrorAt: '2025-01-01T10:00:00Z', missed: 3 });
    backend.notifySettings = { enabled: false, quietHours: { start: '22:00', end: '07:00' }, engines: ['local'], agents: null, highRiskTools: ['delete_record'] };
    backend.expiry = { rules: [{ tool: 'delete_record', afterSecs: 1800 }], warnBeforeSecs: 300 };
    const { target, tid } = await settings(backend);
    const t = text(target);
    for (const words of ['設定', '通知', '通知しない時間帯', '高リスクのツール', '制限時間', 'デスクトップ', '外観', 'テーマ', '言語', '保存', '制限時間を追加', '端末', 'スマートフォンをペアリング', 'チャネルとエスカレーション', 'オンコール'])
      expect(t).toContain(words);
    expect(text(tid('notify-status'))).toMatch(/^デスクトップ通知: オンですが利用できません: dbus: name not provided（.+ 以降）。通知できなかった呼び出し: 3 件$/);
    expect((tid('notify-agents') as HTMLInputElement).placeholder).toBe('すべて');
    expect([...target.querySelectorAll('[data-testid="expiry-rule-unit"] option')].map((o) => o.textContent)).toEqual(['秒', '分', '時間', '日']);
    for (const english of ['Settings', 'Notifications', 'Quiet hours', 'Time limits', 'Appearance', 'Save', 'Desktop notifications'])
      expect(t).not.toContain(english);
    expect(englishLeft(target, ['dbus: name not provided', 'delete_record', 'local', 'English', 'Approval Console', 'serve --notify', 'serve --listen', 'alice-pixel', 'TLS', 'ADDR:PORT', 'DNS', 'console.example.com', 'ID', 'AM', 'PM', 'MCP', 'HTTP', 'claude-code', 'codex', 'gemini', 'mcp', 'acp', 'http', 'alice', 'approval-console policy export > policy.toml', 'policy check', 'policy diff', 'policy apply', 'high_risk_tools = []', 'approval-console channels secret set NAME', 'serve', 'Webhook', 'Slack', 'Mattermost', 'Matrix', 'UTC'])).toEqual([]);
  });

  it('engines: a card with its health, token and counts, the add form and a test result', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.addEngines(
      makeEngine({ name: 'prod', hasToken: true, pending: 4, awaitingDelivery: 2, health: { state: 'auth_failed', lastError: 'HTTP 401', lastErrorAt: '2025-01-01T10:00:00Z', lastOkAt: null } }),
    );
    // Issue 45: the sources seen come first (the local engine's name is translated; engine and agent names are the wire's).
    backend.sourcesSeen = [
      { source: 'local', engine: 'local', calls: 2, pending: 1, firstSeen: '2025-01-01T09:00:00Z', lastSeen: '2025-01-01T10:00:00Z', moreAgents: 0,
        agents: [{ agentId: 'demo', agentName: null, calls: 2, pending: 1, lastSeen: '2025-01-01T10:00:00Z' }] },
    ];
    const { target } = mountInBody(EnginesView, { props: { onerror: () => {}, refreshMs: 60_000 }, context: backendContext(backend) });
    await settle();
    const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
    expect(text(target.querySelector('h2'))).toBe('エンジンとソース');
    expect(text(target.querySelector('#engines-h'))).toBe('リモートエンジン');
    expect(text(tid('engine-health'))).toBe('認証失敗');
    expect(text(tid('engine-token'))).toBe('トークン保存済み');
    expect(text(tid('engine-last-ok'))).toBe('なし');
    expect(text(tid('engine-sync'))).toBe('今すぐ同期');
    tid('engine-sync')!.click();
    await settle();
    expect(text(tid('engine-sync-report'))).toBe('同期しました: 追加 2、変更 0、消失 0、スキップ 0 （エージェント 1 個から 2 件を取得）');
    tid('engine-remove')!.click();
    await settle();
    expect(text(tid('engine-remove-confirm-box'))).toContain('エンジン prod を削除しますか？');
    expect(tid('engine-remove-confirm-box')!.getAttribute('aria-label')).toBe('prod の削除の確認');
    (tid('add-engine-url') as HTMLInputElement).value = 'http://127.0.0.1:4111';
    tid('add-engine-url')!.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    tid('add-engine-test')!.click();
    await settle();
    expect(text(tid('add-engine-test-result'))).toBe('接続可能: エージェント 2 個 何も保存されていません。');
    const t = text(target);
    for (const english of ['Remote engines', 'auth failed', 'token stored', 'Sync now', 'Add engine', 'Test connection', 'Poll interval']) expect(t).not.toContain(english);
    expect(englishLeft(target, ['prod', 'HTTP 401', 'http://127.0.0.1:4111', 'Mastra', 'LangGraph', '/api', 'API', 'URL', 'OS', 'ID', 'AM', 'PM', ' ms', 'local', 'demo', 'Claude Code', 'Codex', 'Gemini CLI', 'HTTP', 'MCP'])).toEqual([]);
  });

  it('audit: the history with its verdicts and deliveries, the chain check, and all entries', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const entry = (seq: number, action: string, details: unknown): AuditEntry =>
      makeAuditEntry(seq, action, { at: '2025-01-01T10:00:00Z', fingerprint: 'sha256:' + '3c'.repeat(32), details, hash: 'sha256:' + '1'.repeat(64) });
    const records: DecisionRecord[] = [
      { decision: entry(4, 'decision.decline', { args: { id: 'rec-2' }, verdict: { reason: 'no' } }), delivery: null },
      { decision: entry(2, 'decision.approve', { args: { id: 'rec-1' }, verdict: {} }), delivery: entry(3, 'delivery.delivered', { outcome: 'ok' }) },
    ];
    backend.history = records;
    backend.audit = [entry(1, 'queue.added', {})];
    backend.verification = { ok: true, checked: 12, firstBad: null };
    const { target } = mountInBody(AuditView, { props: { onerror: () => {}, save: () => {} }, context: backendContext(backend) });
    await settle();
    const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
    expect(text(q('h2'))).toBe('履歴と監査ログ');
    expect(text(q('[data-testid="verify-result"]'))).toBe('ハッシュチェーンは正常です: 12 件のエントリを確認しました。');
    // Issue 45: the call's agent and source, who decided, what became of it (arguments and fingerprint under the tool).
    expect([...target.querySelectorAll('thead th')].map(text)).toEqual(['日時', 'ツール', 'エージェント', 'ソース', '決定', '決定者', '配信結果', '詳細']);
    expect([...target.querySelectorAll('[data-testid="history-verdict"]')].map(text)).toEqual(['拒否 no', '承認']);
    expect([...target.querySelectorAll('[data-testid="history-delivery"]')].map((e) => text(e).split(' ')[0])).toEqual(['未配信', '配信済み']);
    let t = text(target);
    for (const english of ['History and audit', 'Hash chain', 'declined', 'approved', 'not delivered yet', 'Decisions', 'Export the whole log']) expect(t).not.toContain(english);
    // The sources by product name (the filter offers them).
    const wire = ['alice (web)', 'delete_record', 'rec-1', 'rec-2', 'JSON Lines', 'CSV', 'sha256', 'AM', 'PM', 'id', '"ok"', 'Mastra', 'LangGraph', 'HTTP', 'Claude Code', 'Codex', 'Gemini CLI', 'MCP', 'ACP', 'OpenAI Agents', 'AI SDK', 'ADK', 'LangChain', 'A2A'];
    expect(englishLeft(target, wire)).toEqual([]);

    q('[data-testid="audit-mode-entries"]')!.click();
    await settle();
    expect([...target.querySelectorAll('thead th')].map(text)).toEqual(['#', '日時', '実行者', '操作', 'ツール', 'エージェント', 'ソース', '変更内容', '詳細']);
    t = text(target);
    expect(t).toContain('queue.added');
    expect(englishLeft(target, [...wire, 'queue.added'])).toEqual([]);
  });

  it('grants: the list, its scope and conditions in Japanese word order, and the revoke step', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.grants = [
      makeGrant({ id: 'g2', uses: 2, conditions: [{ pointer: '/id', op: 'prefix', value: 'rec-' }, { pointer: '/amount', op: 'atMost', value: 100 }] }),
      makeGrant({ id: 'g1', scope: 'run', runId: 'run-9', revokedAt: '2025-01-01T10:30:00Z', revokedBy: 'web' }),
    ];
    const { target } = mountInBody(GrantsView, { props: { refreshMs: 60_000 }, context: backendContext(backend) });
    await settle();
    const rows = [...target.querySelectorAll<HTMLElement>('[data-testid="grant-row"]')];
    const cell = (r: HTMLElement, id: string) => text(r.querySelector(`[data-testid="${id}"]`));
    expect(text(target.querySelector('h2'))).toBe('常に許可ルール');
    expect(cell(rows[0], 'grant-state')).toBe('有効');
    expect(cell(rows[0], 'grant-scope')).toBe('エンジン local のエージェント demo による delete_record の呼び出しすべて');
    expect(cell(rows[0], 'grant-conditions')).toBe('id が rec- で始まる、かつ amount が 100 以下である');
    expect(cell(rows[1], 'grant-state')).toBe('取り消し済み');
    expect(cell(rows[1], 'grant-scope')).toBe('実行 run-9（エンジン local のエージェント demo）での delete_record の呼び出しすべて');
    expect(cell(rows[1], 'grant-conditions')).toBe('なし（範囲内のすべての呼び出し）');
    expect(text(rows[1])).toContain('（取り消した人: web）');
    rows[0].querySelector<HTMLElement>('[data-testid="revoke"]')!.click();
    await settle();
    expect(text(rows[0].querySelector('[data-testid="revoke-confirm"]'))).toBe(
      '取り消しますか？以降の呼び出しは再び決定を待つようになります。コーディングエージェントに書き戻したルールは、コンソールが安全に削除できるものをファイルから削除し（事前にバックアップ）、手動で削除すべきものを一覧にします。セッションルールはそのセッションが終わるまで残ります。 取り消す キャンセル',
    );
    expect(englishLeft(target, ['local', 'demo', 'delete_record', 'run-9', 'rec-', 'amount', 'web', 'id', 'AM', 'PM'])).toEqual([]);
  });

  it('"Always allow…": the form and its preview', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    const item = makeItem({ args: { id: 'rec-1' } });
    backend.add(item);
    const { target } = mountInBody(GrantForm, { props: { item }, context: backendContext(backend) });
    flushSync();
    const q = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
    expect(text(q('grant-open'))).toBe('承認して常に許可…');
    q('grant-open')!.click();
    await settle();
    expect(text(target.querySelector('h4'))).toBe('delete_record を今すぐ承認し、常に許可');
    expect(text(q('grant-preview'))).toBe('実行 run-1（エンジン local のエージェント demo）での delete_record の呼び出しすべてを確認なしで承認します。');
    (q('grant-scope-agent') as HTMLInputElement).click();
    flushSync();
    expect(text(q('grant-preview'))).toBe('エンジン local のエージェント demo による delete_record の呼び出しすべてを確認なしで承認します。');
    pick(q('grant-condition-on'));
    const box = q('grant-condition-on') as HTMLInputElement;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    expect(text(q('grant-preview'))).toBe('id が rec-1 に等しい場合、エンジン local のエージェント demo による delete_record の呼び出しすべてを確認なしで承認します。');
    expect([...target.querySelectorAll('[data-testid="grant-lifetime"] option')].map((o) => o.textContent)).toEqual(['1 時間', '8 時間', '1 日', '7 日']);
    expect(englishLeft(target, ['local', 'demo', 'delete_record', 'rec-1', 'id', item.fingerprint])).toEqual([]);
    // The waiting calls it approves and the confirm step.
    await vi.waitFor(() => expect(q('grant-waiting')!.dataset.state).toBe('counted'));
    expect(text(q('grant-waiting-call'))).toBe('delete_record （この呼び出し） エージェント demo id: "rec-1"');
    q('grant-save')!.click();
    await settle();
    expect(text(q('grant-confirm-question'))).toBe('保留中の呼び出し 1 件を今すぐ承認し、以降の呼び出しを常に許可しますか？');
    expect(text(q('grant-confirm-yes'))).toBe('この 1 件を承認して以降も許可');
    expect(text(q('grant-back'))).toBe('戻る');
    expect(englishLeft(target, ['local', 'demo', 'delete_record', 'rec-1', 'id', item.fingerprint])).toEqual([]);
  });

  it('error banners: titles by code, the fingerprints, a different token, an unknown code', () => {
    i18n.set('ja');
    const banners = new Banners();
    banners.push({ code: 'fingerprint_mismatch', message: 'fingerprint differs', details: { expected: 'sha256:aa', actual: 'sha256:bb' } });
    banners.push({ code: 'unauthorized', message: 'missing bearer token', details: null });
    banners.push({ code: 'brand_new', message: 'something odd', details: null });
    const { target } = mountInBody(ErrorBanners, { props: { banners, onSignOut: () => {} } });
    flushSync();
    const all = [...target.querySelectorAll<HTMLElement>('[data-testid="error-banner"]')];
    expect(all.map((b) => text(b.querySelector('strong')))).toEqual([
      '確認した後に呼び出しが変更されました。決定は適用されていません。再読み込みした呼び出しを確認してください。',
      'アクセストークンが間違っているか、ありません。',
      'エラー: brand_new',
    ]);
    // The server's words are shown as they came.
    expect(text(all[0])).toContain('fingerprint differs');
    expect(text(all[0])).toContain('確認したフィンガープリント');
    expect(text(all[1])).toContain('別のトークンを入力');
    expect(text(all[2])).toContain('コード: brand_new');
    expect(all[0].querySelector('.dismiss')!.getAttribute('aria-label')).toBe('閉じる');
    expect(englishLeft(target, ['fingerprint differs', 'missing bearer token', 'something odd', 'brand_new', 'sha256'])).toEqual([]);
  });

  it('follows a change of language while shown', () => {
    const banners = new Banners();
    banners.push({ code: 'network', message: '', details: null });
    const { target } = mountInBody(ErrorBanners, { props: { banners } });
    flushSync();
    expect(text(target.querySelector('strong'))).toBe('The console server cannot be reached.');
    i18n.set('ja');
    flushSync();
    expect(text(target.querySelector('strong'))).toBe('コンソールサーバーに接続できません。');
  });

  it('the token screen', () => {
    i18n.set('ja');
    const { target } = mountInBody(TokenScreen, { props: { onToken: () => false } });
    flushSync();
    expect(text(target)).toContain('approval-console serve でサーバーを起動し、表示されたアドレスを開いてください。');
    target.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    flushSync();
    expect(text(target.querySelector('[role="alert"]'))).toBe('トークンでも、#token=… 付きのコンソールの URL でもありません。');
    expect(JAPANESE.test(text(target.querySelector('label')))).toBe(true);
    expect(englishLeft(target, ['Approval Console', 'approval-console serve', 'http://127.0.0.1:PORT/#token=…', '#token=…', 'URL'])).toEqual([]);
  });
});
