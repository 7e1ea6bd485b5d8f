// An ACP editor on the official SDK (@agentclientprotocol/sdk): starts
// `approval-console acp [--editor-decides-too] -- node agent.mjs` (APPROVAL_CONSOLE_BIN, ACP_EDITOR_DECIDES),
// opens a session, prompts it to write ACP_FILE, and prints one JSON line: the agent's report, the turn's
// stop reason, and what became of the permission request the editor itself was asked (if any).
// ACP_EDITOR_ANSWER: the option kind the editor answers with, once the file ACP_EDITOR_GO exists;
// unset, it never answers (it waits until the request is cancelled).
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const flags = process.env.ACP_EDITOR_DECIDES ? ['--editor-decides-too'] : [];
// ACP_AGENT: another agent's command as a JSON array (a real one, e.g. Gemini CLI's `--acp` mode), prompted
// with ACP_PROMPT in ACP_CWD; its answer is reported as text. Unset: agent.mjs, which reports JSON.
const agent = process.env.ACP_AGENT ? JSON.parse(process.env.ACP_AGENT) : [process.execPath, join(here, 'agent.mjs')];
const relay = spawn(process.env.APPROVAL_CONSOLE_BIN, ['acp', ...flags, '--', ...agent], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
// `cancelled`: the request was cancelled while the turn went on (not merely when the connection closed).
const asked = { asked: false, answered: null, cancelled: false };
let turnEnded = false;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const report = await client({ name: 'fixture-editor' })
  .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
    asked.asked = true;
    signal.addEventListener('abort', () => {
      if (!turnEnded) asked.cancelled = true;
    });
    const answer = process.env.ACP_EDITOR_ANSWER;
    const deadline = Date.now() + 60_000;
    while (!signal.aborted && Date.now() < deadline && !(answer && existsSync(process.env.ACP_EDITOR_GO))) await sleep(20);
    if (signal.aborted) {
      return { outcome: { outcome: 'cancelled' } };
    }
    const option = params.options.find((o) => o.kind === answer);
    asked.answered = option.optionId;
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  })
  .onNotification(methods.client.session.update, () => {})
  .connectWith(ndJsonStream(Writable.toWeb(relay.stdin), Readable.toWeb(relay.stdout)), async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    return ctx.buildSession(process.env.ACP_CWD ?? here).withSession(async (session) => {
      let text = '';
      session.prompt(process.env.ACP_PROMPT ?? process.env.ACP_FILE);
      for (;;) {
        const message = await session.nextUpdate();
        if (message.kind === 'stop') turnEnded = true;
        if (message.kind === 'stop') return { stopReason: message.stopReason, agent: process.env.ACP_AGENT ? text : JSON.parse(text) };
        if (message.update.sessionUpdate === 'agent_message_chunk') text += message.update.content.text;
      }
    });
  });
relay.stdin.end();
const exit = await new Promise((resolve) => relay.on('exit', (code) => resolve(code)));
console.log(JSON.stringify({ ...report, editor: asked, relayExit: exit }));
