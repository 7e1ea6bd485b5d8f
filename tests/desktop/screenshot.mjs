// Makes docs/desktop.png, the README's picture of the real desktop window with a pending call open:
//   APPROVAL_CONSOLE_DESKTOP_BIN=target/debug/approval-console-desktop TAURI_DRIVER=.tools/bin/tauri-driver \
//     scripts/with-desktop node tests/desktop/screenshot.mjs
// The window is driven through tauri-driver (WebDriver) and captured with WebDriver's screenshot.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDesktop } from './driver.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const desktop = await openDesktop();
try {
  await desktop.waitFor(() => desktop.find('[data-testid="queue-tab"]'), 'the console');
  await desktop.pause('delete rec-7');
  await desktop.pause('ask which region should the report cover?');
  const item = await desktop.pause('delete rec-42');
  const row = `[data-testid="queue-item"][data-id="${item.id}"]`;
  await desktop.click(row);
  await desktop.waitFor(() => desktop.find('[data-testid="fingerprint-full"]'), 'the detail');
  await new Promise((r) => setTimeout(r, 500));
  const png = await desktop.wd('GET', '/screenshot');
  const out = join(root, 'docs', 'desktop.png');
  writeFileSync(out, Buffer.from(png, 'base64'));
  console.log(`wrote ${out}`);
} finally {
  await desktop.close();
}
