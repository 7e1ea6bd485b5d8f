// Writes queue entries straight into the SQLite file of a server that is not running, for shapes that
// no engine this console talks to can produce end to end (a hostile tool name, agent name or ids, a
// resume schema whose titles are hostile, nested arguments with hostile keys: the demo agent only ever
// proposes `{id: <text>}` / `{question: <text>}` with its fixed schemas). The last resort, and only for
// the UI's rendering: the rows are shaped as `store::queue::insert_pending` writes them, with the real
// fingerprint, so the UI's own fingerprint check verifies them.
//
// The console's own CLI creates and migrates the database; node-sqlite3-wasm (SQLite compiled to
// WebAssembly, reading the file through Node's fs: no native module, no sqlite3 binary) writes to it.
// Its file system layer has no shared memory, so it opens the WAL database in exclusive locking mode
// (the WAL index then lives in its own memory), which also checkpoints the WAL into the file on close.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sqlite from 'node-sqlite3-wasm';
import { serverBin } from './helpers.mjs';

/** RFC 8785 canonical JSON for the values used here (strings, integers, booleans, null, arrays, objects). */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    // JCS sorts keys by UTF-16 code units, which is what the default sort compares.
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint of rule S7: `sha256:` + hex(SHA-256(JCS({toolName, args}))). */
export function fingerprintOf(toolName, args) {
  return 'sha256:' + createHash('sha256').update(canonicalJson({ toolName, args }), 'utf8').digest('hex');
}

/**
 * Inserts pending queue entries into `<dataDir>/approval-console.db`, creating and migrating it first
 * (through the console's CLI: `tokens add`) if needed. No server may be running on that directory. Returns the ids.
 * @param {string} dataDir
 * @param {Array<{toolName: string, args: unknown, kind?: 'approval'|'suspend', agentId?: string, agentName?: string|null,
 *   threadId?: string|null, resourceId?: string|null, runId?: string, toolCallId?: string, suspendPayload?: unknown,
 *   resumeSchema?: unknown, chain?: Array<{agentId: string, toolCallId: string, toolName: string}>}>} items
 */
export async function seedQueue(dataDir, items) {
  const file = join(dataDir, 'approval-console.db');
  // A write makes the database (a read such as `queue` never creates one): a viewer credential no test looks at.
  if (!existsSync(file)) await promisify(execFile)(serverBin, ['--data-dir', dataDir, 'tokens', 'add', 'e2e-seed', '--role', 'viewer']);
  const db = new sqlite.Database(file, { fileMustExist: true });
  const ids = [];
  try {
    db.get('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN');
    const searchIndex = db.get("SELECT 1 AS found FROM sqlite_master WHERE name = 'queue_search'") !== null;
    for (const it of items) {
      const id = `q_${randomUUID().replaceAll('-', '')}`;
      const at = new Date().toISOString().replace('Z', '000Z'); // microseconds, as the store writes them
      const { lastInsertRowid: seq } = db.run(
        `INSERT INTO queue_items (id, engine, agent_id, agent_name, thread_id, resource_id, run_id, tool_call_id,
           tool_name, args, fingerprint, kind, suspend_payload, resume_schema, chain, state, paused_at, updated_at)
         VALUES (?, 'local', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        [
          id,
          it.agentId ?? 'demo',
          it.agentName ?? null,
          it.threadId ?? null,
          it.resourceId ?? null,
          it.runId ?? randomUUID(),
          it.toolCallId ?? 'call_1',
          it.toolName,
          JSON.stringify(it.args),
          fingerprintOf(it.toolName, it.args),
          it.kind ?? 'approval',
          it.suspendPayload === undefined ? null : JSON.stringify(it.suspendPayload),
          it.resumeSchema === undefined ? null : JSON.stringify(it.resumeSchema),
          JSON.stringify(it.chain ?? []),
          at,
          at,
        ],
      );
      // The search box's index, as insert_pending fills it (`search_text`): tool, agent id, agent name, arguments.
      if (searchIndex) {
        const text = [it.toolName, it.agentId ?? 'demo', it.agentName ?? '', JSON.stringify(it.args)].join('\n');
        db.run('INSERT INTO queue_search (rowid, text) VALUES (?, ?)', [seq, text]);
      }
      ids.push(id);
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
  if (existsSync(`${file}-wal`)) throw new Error(`${file}-wal is still there after seeding`);
  return ids;
}
