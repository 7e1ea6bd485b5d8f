// Takes the README's screenshot: a real server with a few paused demo calls, the console in Debian
// chromium, one call open. Not a test: `node tests/e2e/screenshot.mjs [out.png] [light|dark]`.
import { join } from 'node:path';
import { launchBrowser, openConsole, repoRoot, row, startServer } from './helpers.mjs';

const out = process.argv[2] ?? join(repoRoot, 'docs/screenshot.png');
const scheme = process.argv[3] ?? 'light';
const server = await startServer();
const browser = await launchBrowser();
try {
  await server.generate('lookup rec-1');
  await server.generate('ask Which region should the backup go to?');
  await server.api('POST', '/api/agents/demo/generate', { messages: 'both cust-7731', requireToolApproval: true });
  const item = await server.waitForItem(await server.generate('delete invoice-2024-0042'));
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 }, colorScheme: scheme });
  const page = await context.newPage();
  await openConsole(page, server);
  await row(page, item.id).click();
  await page.locator('[data-testid="detail"]').waitFor();
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.stop();
}
