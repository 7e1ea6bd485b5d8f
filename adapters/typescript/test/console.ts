// A real `approval-console serve` for the adapter tests: its own data directory and a fixed free
// port (so that it can be killed with SIGKILL and started again at the same address), an agent
// credential for the adapter and an operator credential that decides over the HTTP API.
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const serverBin = process.env.APPROVAL_CONSOLE_BIN || join(repoRoot, "target/debug/approval-console");

export interface TestConsole {
  url: string;
  dataDir: string;
  agentToken: string;
  /** The HTTP API as the operator: `{status, body}`. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Polls the queue (every 5 ms) until a pending row with `tool` and `args` shows; resolves it. */
  waitForRow(tool: string, args: unknown, deadlineMs?: number): Promise<any>;
  approve(row: any): Promise<void>;
  decline(row: any, reason: string): Promise<void>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
  /** `serve` again on the same data directory and port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function tokenFor(dataDir: string, name: string, role: string): string {
  const out = execFileSync(serverBin, ["--data-dir", dataDir, "tokens", "add", name, "--role", role], { encoding: "utf8" });
  return out.trim().split("\n").at(-1)!;
}

export async function startConsole(agent: string): Promise<TestConsole> {
  if (!existsSync(serverBin)) throw new Error(`no console binary at ${serverBin}: build it (cargo build --bin approval-console) or set APPROVAL_CONSOLE_BIN`);
  const dataDir = await mkdtemp(join(tmpdir(), "approval-console-adapters-"));
  const agentToken = tokenFor(dataDir, agent, "agent");
  const operatorToken = tokenFor(dataDir, "operator-app", "operator");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const proc = spawn(serverBin, ["serve", "--port", String(port), "--data-dir", dataDir], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "warn" },
    });
    child = proc;
    let out = "";
    let err = "";
    proc.stderr!.on("data", (d) => (err += d));
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`the console printed no URL within 30 s\n${out}\n${err}`)), 30_000);
      proc.stdout!.on("data", (d) => {
        out += d;
        if (out.includes(`${url}/`)) {
          clearTimeout(timer);
          ok();
        }
      });
      proc.once("exit", (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`the console exited early (${code ?? signal})\n${out}\n${err}`));
      });
    });
  }

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${operatorToken}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body: json };
  }

  async function waitForRow(tool: string, args: unknown, deadlineMs = 20_000) {
    const until = Date.now() + deadlineMs;
    const wanted = JSON.stringify(args);
    for (;;) {
      const r = await api("GET", "/api/queue?limit=100");
      const row = r.body?.items?.find((i: any) => i.toolName === tool && JSON.stringify(i.args) === wanted);
      if (row) return row;
      if (Date.now() > until) throw new Error(`no queue row for ${tool} ${wanted}: ${JSON.stringify(r.body)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async function decide(row: any, verb: string, extra: object) {
    const r = await api("POST", `/api/queue/${row.id}/${verb}`, { fingerprint: row.fingerprint, ...extra });
    if (r.status !== 200) throw new Error(`${verb} ${row.id} → ${r.status} ${JSON.stringify(r.body)}`);
  }

  async function kill() {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
  }

  await start();
  return {
    url,
    dataDir,
    agentToken,
    api,
    waitForRow,
    approve: (row) => decide(row, "approve", {}),
    decline: (row, reason) => decide(row, "decline", { reason }),
    kill,
    start,
    async stop() {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child!.once("exit", r));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child!.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
