// Takes the README's screenshots: a real server with paused and decided demo calls, the console in
// Debian chromium, at a desk (1440×900) and on a phone (390×844), in the light and the dark theme:
// the queue with a call open (on a phone also the list), a call whose arguments hide characters
// (flagged), the audit view, Settings and Engines; and the queue in Japanese (which needs a
// CJK font in chromium's reach, e.g. Debian's fonts-noto-cjk); and a queue holding calls from five
// sources (the local engine, an HTTP agent, Claude Code's and Codex's hooks, the MCP gate — the
// latter four submitted as those connectors submit them, POST /api/calls). Not a test:
//   node tests/e2e/screenshot.mjs [out-dir]      (default docs/)
import { join } from 'node:path';
import { launchBrowser, openConsole, repoRoot, row, startServer } from './helpers.mjs';

const outDir = process.argv[2] ?? join(repoRoot, 'docs');
const server = await startServer();
const browser = await launchBrowser();
try {
  await server.generate('lookup rec-1');
  await server.generate('ask Which region should the backup go to?');
  // Calls of one tool told apart by their rows' arguments.
  for (const id of ['cust-7', 'rec-12']) await server.waitForItem(await server.generate(`delete ${id}`));
  // Decided calls for the audit view.
  for (const [id, verdict] of [['cust-11', 'approve'], ['cust-12', 'decline']]) {
    const it = await server.waitForItem(await server.generate(`delete ${id}`));
    const body = verdict === 'approve' ? { fingerprint: it.fingerprint } : { fingerprint: it.fingerprint, reason: 'wrong customer' };
    await server.api('POST', `/api/queue/${it.id}/${verdict}`, body);
  }
  // A right-to-left override and a Cyrillic "а" in an argument: what the operator must not miss.
  const hidden = await server.waitForItem(await server.generate('delete invoice-\u202E2400-\u0430dmin'));
  const item = await server.waitForItem(await server.generate('delete invoice-2024-0042'));

  // Each view at a desk (1440×900) and on a phone (390×844, touch), light and dark: the queue with a
  // call open (on a phone: the list, then the call's own screen), the call whose arguments hide
  // characters, the audit log, Settings and Engines.
  const sizes = [
    { name: 'desk', viewport: { width: 1440, height: 900 }, phone: false },
    { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
  ];
  for (const size of sizes) {
    for (const theme of ['light', 'dark']) {
      const context = await browser.newContext({
        viewport: size.viewport,
        colorScheme: theme,
        ...(size.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 1 } : {}),
      });
      await context.addInitScript((t) => localStorage.setItem('approval-console.theme', t), theme);
      const page = await context.newPage();
      const shot = (view) => page.screenshot({ path: join(outDir, `${view}-${size.name}-${theme}.png`) });
      const back = async () => {
        if (size.phone) await page.locator('[data-testid="back-to-list"]').click();
      };
      await openConsole(page, server);
      if (size.phone) await shot('list');
      await row(page, item.id).click();
      await page.locator(`[data-testid="detail"][data-id="${item.id}"]`).waitFor();
      await shot('queue');
      await back();
      await row(page, hidden.id).click();
      await page.locator(`[data-testid="detail"][data-id="${hidden.id}"] [data-testid="args-warnings"]`).waitFor();
      await shot('hidden');
      await back();
      await page.locator('[data-testid="audit-tab"]').click();
      await page.locator('[data-testid="audit-entry"]').first().waitFor();
      await shot('audit');
      await page.locator('[data-testid="settings-tab"]').click();
      await page.locator('[data-testid="settings-form"]').waitFor();
      await shot('settings');
      await page.locator('[data-testid="engines-tab"]').click();
      await page.locator('[data-testid="source-seen"]').first().waitFor();
      await shot('engines');
      await context.close();
    }
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 }, colorScheme: 'light', locale: 'ja-JP' });
  const page = await context.newPage();
  await openConsole(page, server);
  await row(page, item.id).click();
  await page.locator(`[data-testid="detail"][data-id="${item.id}"]`).waitFor();
  await page.screenshot({ path: join(outDir, 'queue-ja.png') });
  await context.close();
  const submitted = [
    { tool: 'Bash', args: { command: 'terraform apply -auto-approve', description: 'Apply the plan' }, agent: 'claude-code', source: 'claude-code', thread: 'sess-4f2a', context: { event: 'PreToolUse', cwd: '/home/dev/infra' } },
    { tool: 'shell', args: { command: ['git', 'push', '--force', 'origin', 'main'] }, agent: 'codex', source: 'codex', thread: 'sess-91c0', context: { event: 'PreToolUse', cwd: '/home/dev/shop' } },
    { tool: 'write_file', args: { path: '/home/dev/notes/plan.md', content: '# Q1 plan' }, agent: 'server-filesystem', source: 'mcp', context: { upstream: 'npx -y @modelcontextprotocol/server-filesystem /home/dev/notes' } },
    { tool: 'refund_order', args: { order: 'ord-5521', amount: 129.9 }, agent: 'billing-bot', thread: 't-88' },
  ];
  let open = null;
  for (const call of submitted) {
    const { status, body } = await server.api('POST', '/api/calls', call);
    if (status !== 201) throw new Error(`POST /api/calls: ${status} ${JSON.stringify(body)}`);
    if (call.source === 'claude-code') open = body.id;
  }
  const sources = await browser.newContext({ viewport: { width: 1280, height: 760 }, colorScheme: 'light' });
  const sourcesPage = await sources.newPage();
  await openConsole(sourcesPage, server);
  await row(sourcesPage, open).click();
  await sourcesPage.locator(`[data-testid="detail"][data-id="${open}"] [data-testid="detail-source"]`).waitFor();
  await sourcesPage.screenshot({ path: join(outDir, 'queue-sources.png') });
  await sources.close();
  console.log(`wrote {queue,hidden,audit,settings,engines}-{desk,phone}-{light,dark}.png, list-phone-{light,dark}.png, queue-ja.png and queue-sources.png in ${outDir}`);
} finally {
  await browser.close();
  await server.stop();
}
