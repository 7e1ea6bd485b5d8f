// Key sets (RFC 7517 JWKS of Ed25519 keys, RFC 8037), from a file or from the console's
// `GET /.well-known/jwks.json`.
import { readFile } from "node:fs/promises";

/** One key of the set. Fields are checked where they are used (`unknown` until then). */
export interface Jwk {
  kty?: unknown;
  crv?: unknown;
  x?: unknown;
  kid?: unknown;
  alg?: unknown;
  use?: unknown;
  /** Unix seconds the key was made. */
  createdAt?: unknown;
  /** Unix seconds the key was retired: receipts it signed claiming a later `issuedAt` are refused. */
  retiredAt?: unknown;
  [other: string]: unknown;
}

export interface Jwks {
  keys: Jwk[];
}

/** Where a verifier finds a key by its `kid`: a fixed set, or one fetched (and refetched) by URL. */
export interface KeySource {
  /** The key with that `kid` (`kty` OKP, `crv` Ed25519), or undefined. Rejects if the set cannot be had. */
  getKey(kid: string): Promise<Jwk | undefined>;
}

/** The first key of `jwks` with that `kid`, `kty` `OKP` and `crv` `Ed25519`. */
export function findKey(jwks: Jwks, kid: string): Jwk | undefined {
  const keys: unknown = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return undefined;
  return keys.find(
    (k: unknown): k is Jwk =>
      typeof k === "object" && k !== null && (k as Jwk).kid === kid && (k as Jwk).kty === "OKP" && (k as Jwk).crv === "Ed25519",
  );
}

/** `value` as a key set, or a thrown Error saying why not. */
export function asJwks(value: unknown, from: string): Jwks {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== "object" || value === null || !Array.isArray(keys)) {
    throw new Error(`${from} is not a JSON Web Key Set (no "keys" array)`);
  }
  return value as Jwks;
}

/** Reads a key set from a JSON file (what `approval-console receipt keys` prints). */
export async function loadJwks(file: string): Promise<Jwks> {
  const text = await readFile(file, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not JSON: ${(e as Error).message}`);
  }
  return asJwks(value, file);
}

export type FetchLike = (url: string, init?: { headers?: Record<string, string>; signal?: AbortSignal }) => Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}>;

export interface FetchJwksOptions {
  /** The fetch to use (default: the global one). */
  fetch?: FetchLike;
  /** Refetch a set older than this, in seconds (default 60): how soon a key's retirement is seen. */
  maxAgeSecs?: number;
  /** At most one refetch for unknown kids per this many seconds (default 1). */
  minRefetchSecs?: number;
  /** Abort a fetch after this many milliseconds (default 10000). */
  timeoutMs?: number;
}

/**
 * A key set fetched from `url` when first needed and cached by kid. A kid the cached set does not
 * have makes one refetch (a rotation may have added it), at most once per `minRefetchSecs`; a set
 * older than `maxAgeSecs` is refetched before use. A failed fetch rejects `getKey` (fail closed).
 */
export class RemoteJwks implements KeySource {
  readonly url: string;
  #fetch: FetchLike;
  #maxAgeMs: number;
  #minRefetchMs: number;
  #timeoutMs: number;
  #keys = new Map<string, Jwk>();
  #fetchedAt = Number.NEGATIVE_INFINITY;
  #inflight: Promise<void> | undefined;

  constructor(url: string, opts: FetchJwksOptions = {}) {
    this.url = url;
    this.#fetch = opts.fetch ?? (globalThis.fetch as unknown as FetchLike);
    this.#maxAgeMs = (opts.maxAgeSecs ?? 60) * 1000;
    this.#minRefetchMs = (opts.minRefetchSecs ?? 1) * 1000;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async getKey(kid: string): Promise<Jwk | undefined> {
    const age = Date.now() - this.#fetchedAt;
    if (age >= this.#maxAgeMs || (!this.#keys.has(kid) && age >= this.#minRefetchMs)) {
      await this.refresh();
    }
    return this.#keys.get(kid);
  }

  /** Fetches the set now (calls made meanwhile share this one fetch). */
  refresh(): Promise<void> {
    this.#inflight ??= this.#load().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #load(): Promise<void> {
    const res = await this.#fetch(this.url, { signal: AbortSignal.timeout(this.#timeoutMs) });
    if (!res.ok) throw new Error(`GET ${this.url}: HTTP ${res.status}`);
    const jwks = asJwks(await res.json(), this.url);
    const keys = new Map<string, Jwk>();
    for (const k of jwks.keys) {
      if (typeof k?.kid === "string" && k.kty === "OKP" && k.crv === "Ed25519" && !keys.has(k.kid)) keys.set(k.kid, k);
    }
    this.#keys = keys;
    this.#fetchedAt = Date.now();
  }
}

/** The console's key set at `url` (e.g. `https://console/.well-known/jwks.json`), fetched lazily. */
export function fetchJwks(url: string, opts: FetchJwksOptions = {}): RemoteJwks {
  return new RemoteJwks(url, opts);
}
