// node cli.ts verify --jwks FILE --tool NAME --args JSON [--run-id ID] [--tool-call-id ID]
//                    [--store memory|file:DIR|sqlite:PATH] [--now UNIX_SECS]  < receipt
//
// Reads the receipt (compact JWS, surrounding whitespace trimmed) from stdin. Prints one JSON line:
//   {"ok":true,"claims":{…}}                 exit 0
//   {"ok":false,"code":"…","message":"…"}    exit 1
// Usage errors, and anything that keeps it from deciding (unreadable key set, failing store),
// print a message on stderr and exit 2.
import { parseExact } from "./src/exact.ts";
import { loadJwks } from "./src/jwks.ts";
import type { Jwks } from "./src/jwks.ts";
import { openStore } from "./src/stores.ts";
import type { ReceiptStore } from "./src/stores.ts";
import { verifyReceipt } from "./src/verify.ts";
import type { VerifyOptions } from "./src/verify.ts";

const USAGE =
  "usage: node cli.ts verify --jwks FILE --tool NAME --args JSON [--run-id ID] [--tool-call-id ID] " +
  "[--store memory|file:DIR|sqlite:PATH] [--now UNIX_SECS]  < receipt";

class UsageError extends Error {}

const FLAGS = new Set(["--jwks", "--tool", "--args", "--run-id", "--tool-call-id", "--store", "--now"]);

function parseArgs(argv: string[]): Map<string, string> {
  if (argv[0] !== "verify") throw new UsageError(argv[0] === undefined ? "no command" : `unknown command ${JSON.stringify(argv[0])}`);
  const flags = new Map<string, string>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!FLAGS.has(name)) throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    let value: string | undefined;
    if (name !== arg) value = arg.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    if (flags.has(name)) throw new UsageError(`${name} given twice`);
    flags.set(name, value);
  }
  for (const required of ["--jwks", "--tool", "--args"]) {
    if (!flags.has(required)) throw new UsageError(`${required} is required`);
  }
  return flags;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

async function main(argv: string[]): Promise<number> {
  let flags: Map<string, string>;
  let args: unknown;
  let now: number | undefined;
  let store: ReceiptStore;
  let jwks: Jwks;
  try {
    flags = parseArgs(argv);
    try {
      args = parseExact(flags.get("--args") as string); // numbers judged as written (exact fingerprints)
    } catch (e) {
      throw new UsageError(`--args is not JSON: ${(e as Error).message}`);
    }
    const nowText = flags.get("--now");
    if (nowText !== undefined) {
      if (!/^-?\d+$/.test(nowText)) throw new UsageError("--now is not an integer (Unix seconds)");
      now = Number(nowText);
    }
    try {
      store = openStore(flags.get("--store") ?? "memory");
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    jwks = await loadJwks(flags.get("--jwks") as string);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${e instanceof UsageError ? USAGE + "\n" : ""}`);
    return 2;
  }

  const receipt = await readStdin();
  const opts: VerifyOptions = { jwks, tool: flags.get("--tool") as string, args, store };
  const runId = flags.get("--run-id");
  const toolCallId = flags.get("--tool-call-id");
  if (runId !== undefined) opts.runId = runId;
  if (toolCallId !== undefined) opts.toolCallId = toolCallId;
  if (now !== undefined) opts.now = now;
  let result;
  try {
    result = await verifyReceipt(receipt, opts);
  } catch (e) {
    process.stderr.write(`cannot check the receipt: ${(e as Error).message}\n`);
    return 2;
  } finally {
    await (store as { close?: () => Promise<void> }).close?.();
  }
  process.stdout.write(JSON.stringify(result) + "\n");
  return result.ok ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
