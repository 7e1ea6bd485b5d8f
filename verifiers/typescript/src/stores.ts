// Stores of used receipt ids: what makes a receipt good for one run of its call.
//
// `consume(id, expiresAt, now?)` records the id as used and resolves `true`, or resolves `false`
// when it already was recorded, atomically. A record is kept until the receipt's `expiresAt` plus a
// grace period (default 300 s, for clocks that disagree between processes sharing a store); after
// `expiresAt` the receipt is refused as expired anyway, so the store may then forget it. `now` is
// the verifier's clock (Unix seconds), used only to decide what to prune; default: the real clock.
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";

export interface ReceiptStore {
  /** Record `id` as used until `expiresAt`; `false` if it already was. Atomic. */
  consume(id: string, expiresAt: number, now?: number): Promise<boolean>;
}

export interface StoreOptions {
  /** Seconds a record is kept after its `expiresAt` (default 300). */
  graceSecs?: number;
  /** Prune expired records at most this often, in seconds (default 60). */
  pruneIntervalSecs?: number;
}

const nowSecs = (): number => Math.floor(Date.now() / 1000);

/** Decides when to prune: at most once per interval, by the caller's clock. */
class Pruning {
  readonly graceSecs: number;
  readonly intervalSecs: number;
  last = Number.NEGATIVE_INFINITY;
  constructor(opts: StoreOptions) {
    this.graceSecs = opts.graceSecs ?? 300;
    this.intervalSecs = opts.pruneIntervalSecs ?? 60;
  }
  /** The cut-off (records with `expiresAt <= cutoff` go) if it is time to prune, else undefined. */
  due(now: number): number | undefined {
    if (Math.abs(now - this.last) < this.intervalSecs) return undefined;
    this.last = now;
    return now - this.graceSecs;
  }
}

/**
 * Used ids in this process's memory. Lost when the process ends: fit for one long-running agent
 * process, not for several processes or restarts.
 */
export class MemoryStore implements ReceiptStore {
  #used = new Map<string, number>();
  #pruning: Pruning;
  constructor(opts: StoreOptions = {}) {
    this.#pruning = new Pruning(opts);
  }
  async consume(id: string, expiresAt: number, now: number = nowSecs()): Promise<boolean> {
    if (this.#used.has(id)) return false;
    this.#used.set(id, expiresAt);
    const cutoff = this.#pruning.due(now);
    if (cutoff !== undefined) {
      for (const [k, exp] of this.#used) if (exp <= cutoff) this.#used.delete(k);
    }
    return true;
  }
  /** How many ids are recorded. */
  get size(): number {
    return this.#used.size;
  }
}

/**
 * Used ids as files in a directory (made if missing, mode 0700): one file per id, named by the
 * SHA-256 hex of the id (so no id can name a path), holding the receipt's `expiresAt` as decimal
 * text. The file is created with `open(path, "wx")` (O_CREAT|O_EXCL): the kernel lets exactly one
 * of several racing processes or store instances create it, which is the atomic "record as used".
 * Pruning deletes the files whose `expiresAt` is past (plus grace); a file still empty (being
 * written, or left by a crash between create and write) is never pruned, so it errs on "used".
 * Needs a file system with atomic exclusive create (any local one; NFS v3+).
 */
export class FileStore implements ReceiptStore {
  readonly dir: string;
  #pruning: Pruning;
  constructor(dir: string, opts: StoreOptions = {}) {
    this.dir = dir;
    this.#pruning = new Pruning(opts);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  async consume(id: string, expiresAt: number, now: number = nowSecs()): Promise<boolean> {
    const path = join(this.dir, createHash("sha256").update(id, "utf8").digest("hex"));
    let file;
    try {
      file = await open(path, "wx", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
    try {
      await file.writeFile(String(expiresAt));
      await file.sync();
    } finally {
      await file.close();
    }
    const cutoff = this.#pruning.due(now);
    if (cutoff !== undefined) await this.prune(cutoff);
    return true;
  }
  /** Deletes the records with `expiresAt <= cutoff`. */
  async prune(cutoff: number): Promise<void> {
    for (const name of await readdir(this.dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const path = join(this.dir, name);
      try {
        const text = (await readFile(path, "utf8")).trim();
        if (/^-?\d+$/.test(text) && Number(text) <= cutoff) await unlink(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // another process pruned it
      }
    }
  }
}

// The subset of node:sqlite used here (Node >= 22.13), so this file type-checks without it.
interface SqliteStatement {
  run(...params: Array<string | number>): { changes: number | bigint };
}
interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

async function openSqlite(path: string): Promise<SqliteDatabase> {
  let mod: { DatabaseSync: new (path: string) => SqliteDatabase };
  try {
    mod = (await import("node:sqlite")) as unknown as typeof mod;
  } catch (e) {
    throw new Error(
      `SqliteStore needs the built-in node:sqlite module (Node >= 22.13); this is Node ${process.versions.node}: ${(e as Error).message}`,
    );
  }
  const db = new mod.DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 10000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(
    "CREATE TABLE IF NOT EXISTS used_receipts (id TEXT PRIMARY KEY NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID",
  );
  return db;
}

/**
 * Used ids in an SQLite database (Node's built-in `node:sqlite`, loaded on first use; on a Node
 * without it `consume` rejects with an error saying so). Table `used_receipts(id PRIMARY KEY,
 * expires_at)`; `INSERT … ON CONFLICT(id) DO NOTHING` changes one row exactly when the id is new,
 * which SQLite makes atomic across connections and processes. WAL mode, 10 s busy timeout.
 */
export class SqliteStore implements ReceiptStore {
  readonly path: string;
  #db: Promise<SqliteDatabase> | undefined;
  #pruning: Pruning;
  constructor(path: string, opts: StoreOptions = {}) {
    this.path = path;
    this.#pruning = new Pruning(opts);
  }
  /** Opens the database now (else on first `consume`): fails early on a Node without node:sqlite. */
  async open(): Promise<void> {
    await this.#handle();
  }
  #handle(): Promise<SqliteDatabase> {
    this.#db ??= openSqlite(this.path);
    return this.#db;
  }
  async consume(id: string, expiresAt: number, now: number = nowSecs()): Promise<boolean> {
    const db = await this.#handle();
    const res = db
      .prepare("INSERT INTO used_receipts (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING")
      .run(id, expiresAt);
    const cutoff = this.#pruning.due(now);
    if (cutoff !== undefined) db.prepare("DELETE FROM used_receipts WHERE expires_at <= ?").run(cutoff);
    return Number(res.changes) === 1;
  }
  async close(): Promise<void> {
    if (this.#db) (await this.#db).close();
    this.#db = undefined;
  }
}

/** A store from a spec: `memory`, `file:DIR` or `sqlite:PATH`. Throws on anything else. */
export function openStore(spec: string, opts: StoreOptions = {}): ReceiptStore {
  if (spec === "memory") return new MemoryStore(opts);
  if (spec.startsWith("file:") && spec.length > 5) return new FileStore(spec.slice(5), opts);
  if (spec.startsWith("sqlite:") && spec.length > 7) return new SqliteStore(spec.slice(7), opts);
  throw new Error(`unknown store ${JSON.stringify(spec)}: use memory, file:DIR or sqlite:PATH`);
}
