// A fake Approval Console for the hook tests: serves receipts by tool call id and the key set.
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeConsole {
  url: string;
  token: string;
  /** receipts by toolCallId */
  receipts: Map<string, string>;
  /** the key set served at /.well-known/jwks.json */
  jwks: { keys: unknown[] };
  /** every request: method, path with query, authorization */
  requests: Array<{ path: string; auth: string | undefined }>;
  close(): Promise<void>;
}

export async function startConsole(token = "agent-token"): Promise<FakeConsole> {
  const state = { receipts: new Map<string, string>(), jwks: { keys: [] as unknown[] }, requests: [] as FakeConsole["requests"] };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    state.requests.push({ path: url.pathname + url.search, auth: req.headers.authorization });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/jwks.json") return send(200, state.jwks);
    if (url.pathname === "/api/receipts") {
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "unauthorized" });
      const r = state.receipts.get(url.searchParams.get("toolCallId") ?? "");
      return r ? send(200, { receipt: r, callId: "itm_1" }) : send(404, { error: "no receipt" });
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    ...state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
