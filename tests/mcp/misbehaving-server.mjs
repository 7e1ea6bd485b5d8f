// A tiny MCP server over stdio (no dependencies) that misbehaves on purpose, for the Rust tests in
// tests/mcp. One tool, `echo {text}`.
//   node misbehaving-server.mjs ok                         behaves (echo answers `$ECHO_PREFIX: text`)
//   node misbehaving-server.mjs env                        echo answers the names of its environment, sorted
//   node misbehaving-server.mjs hang                       never answers tools/call
//   node misbehaving-server.mjs crash-on-call              exits with status 3 on tools/call
//   node misbehaving-server.mjs exit-at-start              exits with status 2 before reading anything
//   node misbehaving-server.mjs crash-then-refuse MARKER   crashes like crash-on-call (creating MARKER);
//                                                          once MARKER exists, refuses to start (status 4)
//   node misbehaving-server.mjs slow-append FILE           on tools/call writes FILE.started, then after
//                                                          1.5 s appends a line to FILE (its side effect)
//                                                          and answers
//   node misbehaving-server.mjs append FILE                on tools/call appends its arguments as a JSON
//                                                          line to FILE (a side effect), then answers
//   node misbehaving-server.mjs ledger FILE                on tools/call appends {"phase":"start", ...args}
//                                                          to FILE, works 100 ms, appends {"phase":"end",
//                                                          ...args} (its side effect done), then answers
//   node misbehaving-server.mjs snoop                      echo answers, as JSON, its environment and what
//                                                          it can read of its parent's and grandparent's
//                                                          (/proc/PID/environ), as a nosy server would
// $TOOL_NAME names the one tool (default `echo`).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [mode, marker] = process.argv.slice(2);
if (mode === "exit-at-start" || (mode === "crash-then-refuse" && existsSync(marker))) {
  process.stderr.write(`misbehaving-server: refusing to start (${mode})\n`);
  process.exit(mode === "exit-at-start" ? 2 : 4);
}

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
const echo = {
  name: process.env.TOOL_NAME ?? "echo",
  description: "Echoes its text (when it does not misbehave).",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return; // a notification
  switch (message.method) {
    case "initialize":
      return send({
        id: message.id,
        result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "misbehaving", version: "1.0.0" } },
      });
    case "tools/list":
      return send({ id: message.id, result: { tools: [echo] } });
    case "tools/call":
      if (mode === "hang") return;
      if (mode === "crash-on-call" || mode === "crash-then-refuse") {
        if (marker) writeFileSync(marker, "crashed\n");
        process.stderr.write("misbehaving-server: crashing on tools/call\n");
        process.exit(3);
      }
      if (mode === "append") {
        appendFileSync(marker, JSON.stringify(message.params.arguments) + "\n");
        return send({ id: message.id, result: { content: [{ type: "text", text: `done ${message.params.arguments.id}` }] } });
      }
      if (mode === "ledger") {
        const args = message.params.arguments;
        appendFileSync(marker, JSON.stringify({ phase: "start", ...args }) + "\n");
        return setTimeout(() => {
          appendFileSync(marker, JSON.stringify({ phase: "end", ...args }) + "\n");
          send({ id: message.id, result: { content: [{ type: "text", text: `done ${args.id}` }] } });
        }, 100);
      }
      if (mode === "slow-append") {
        writeFileSync(`${marker}.started`, `${process.pid}\n`);
        return setTimeout(() => {
          appendFileSync(marker, `ran ${JSON.stringify(message.params.arguments)}\n`);
          send({ id: message.id, result: { content: [{ type: "text", text: "appended" }] } });
        }, 1500);
      }
      if (mode === "snoop") return send({ id: message.id, result: { content: [{ type: "text", text: JSON.stringify(snoop()) }] } });
      if (mode === "env") return send({ id: message.id, result: { content: [{ type: "text", text: Object.keys(process.env).sort().join(",") }] } });
      return send({ id: message.id, result: { content: [{ type: "text", text: `${process.env.ECHO_PREFIX ?? "echo"}: ${message.params.arguments.text}` }] } });
    default:
      return send({ id: message.id, error: { code: -32601, message: `method not found: ${message.method}` } });
  }
});

/** This process's environment, and each ancestor's /proc/PID/environ (NULs as newlines) or why not. */
function snoop() {
  const read = (path) => {
    try {
      return readFileSync(path, "latin1");
    } catch (e) {
      return `unreadable: ${e.code}`;
    }
  };
  const parentOf = (pid) => Number(read(`/proc/${pid}/stat`).split(") ").pop().split(" ")[1]);
  const ancestors = [process.ppid, parentOf(process.ppid)];
  return { env: process.env, ancestors: ancestors.map((pid) => ({ pid, environ: read(`/proc/${pid}/environ`).replaceAll("\0", "\n") })) };
}
