// C7 through the window: a remote engine's token typed into the desktop app's Engines form goes to the
// OS keyring (a real gnome-keyring), is read back from it by a fresh process (libsecret's
// secret-tool), and is in no file of the data directory and no log line (the app logs at trace).
//
//   scripts/with-keyring scripts/with-desktop node --test tests/desktop/keyring.test.mjs
//
// Skipped (saying so) outside scripts/with-keyring, which sets APPROVAL_CONSOLE_KEYRING_TESTS=1.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDesktop, waitFor } from './driver.mjs';

const enabled = process.env.APPROVAL_CONSOLE_KEYRING_TESTS === '1';

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

test('c07 a token entered in the window is in the keyring, read by a fresh process, and nowhere else', { skip: !enabled && 'needs scripts/with-keyring' }, async () => {
  const desktop = await openDesktop({ log: 'trace', quiet: true });
  try {
    const name = `kr-${randomBytes(4).toString('hex')}`;
    const token = `tok-desktop-${randomBytes(16).toString('hex')}`;
    await waitFor(() => desktop.find('[data-testid="engines-tab"]'), 'the console in the window');
    await desktop.click('[data-testid="engines-tab"]');
    await desktop.type('[data-testid="add-engine-name"]', name);
    await desktop.type('[data-testid="add-engine-url"]', 'http://127.0.0.1:9');
    await desktop.type('[data-testid="add-engine-token"]', token);
    await desktop.click('[data-testid="add-engine-submit"]');
    await waitFor(() => desktop.find('[data-testid="add-engine-done"]'), 'the engine added');

    const engines = (await desktop.api('GET', '/api/engines')).body;
    const engine = engines.find((e) => e.name === name);
    assert.equal(engine?.hasToken, true, JSON.stringify(engines));
    assert.ok(!JSON.stringify(engines).includes(token), 'the API never shows the token');

    // An independent, fresh reader of the Secret Service. The entry is named after the engine and the
    // URL the token was given for (`engine.NAME.token.` + 16 hex digits: a URL changed on another
    // console finds none); no entry without the URL is left.
    // secret-tool prints each item's label and secret on stdout, its attributes on stderr.
    const search = spawnSync('secret-tool', ['search', '--all', 'service', 'approval-console'], { encoding: 'utf8' });
    assert.equal(search.status, 0, search.stderr);
    const listed = `${search.stdout}\n${search.stderr}`;
    const entries = [...listed.matchAll(/^attribute\.username = (.*)$/gm)].map((m) => m[1]).filter((u) => u.startsWith(`engine.${name}.`));
    assert.equal(entries.length, 1, `one keyring entry for the engine: ${entries}`);
    assert.match(entries[0], new RegExp(`^engine\\.${name}\\.token\\.[0-9a-f]{16}$`));
    const stored = execFileSync('secret-tool', ['lookup', 'service', 'approval-console', 'username', entries[0]], { encoding: 'utf8' });
    assert.equal(stored, token);

    const files = filesUnder(desktop.dataDir);
    assert.ok(files.some((f) => f.endsWith('.db')), `the data directory holds the database: ${files}`);
    for (const f of files) assert.ok(!readFileSync(f).includes(token), `the token is in ${f}`);
    assert.ok(desktop.stderr().length > 0, 'the app logged (trace)');
    assert.ok(!desktop.stderr().includes(token), 'the token is in a log line');
  } finally {
    await desktop.close();
  }
});
