// An A2A agent on the official @a2a-js/sdk (v1.0 JSON-RPC binding over express), with a scripted
// model (no network): asked to refund an order, it stops in `input-required` and asks for approval
// of the refund (a DataPart `{tool, args}` and a text part); asked to deploy, it stops in
// `auth-required` the same way; asked anything else, it asks a question in words alone. The next
// message on the task decides: a DataPart `{decision: "approve"|"decline", reason?, receipt?}` (the
// console's convention, README "A2A agents"), `{decision: "answer", answer}`, or — from any other
// client — a plain text naming a new amount, after which it asks again with the new arguments (a new
// request message). What it received and what it ran is kept in memory and served at GET /log.
//
// Started by tests/support/a2a_server.rs: `node agent.mjs` prints `{"port": N}` once it listens on
// 127.0.0.1 (port 0: the OS picks one). `A2A_TOKEN` set: every A2A request needs it as a bearer token.

import express from 'express';
import { randomUUID } from 'node:crypto';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const INPUT_REQUIRED = 6;
const AUTH_REQUIRED = 8;
const COMPLETED = 3;
const SUBMITTED = 1;
const WORKING = 2;
const CANCELED = 5;
const ROLE_AGENT = 2;

/** Everything the agent was sent (`received`) and every action it ran (`ran`). */
const log = { received: [], ran: [] };

const text = (value) => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value) => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });
const plain = (message) => message.parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('\n');
const datum = (message) => message.parts.find((p) => p.content?.$case === 'data')?.content.value;

/** A status update of `state` with an agent message of `parts`. */
function status(ctx, state, parts) {
  const message = parts && {
    role: ROLE_AGENT, messageId: randomUUID(), taskId: ctx.taskId, contextId: ctx.contextId, parts,
    metadata: undefined, extensions: [], referenceTaskIds: [],
  };
  return AgentEvent.statusUpdate({
    taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined,
    status: { state, message, timestamp: new Date().toISOString() },
  });
}

/** What the scripted model makes of a first message: the action it wants approved, or a question. */
function plan(words) {
  const order = /order (\S+)/.exec(words)?.[1] ?? 'ord-1';
  const amount = Number(/amount (\d+)/.exec(words)?.[1] ?? 120);
  if (/refund/i.test(words)) return { state: INPUT_REQUIRED, tool: 'refund_order', args: { order, amount } };
  if (/deploy/i.test(words)) return { state: AUTH_REQUIRED, tool: 'deploy', args: { service: /deploy (\S+)/.exec(words)?.[1] ?? 'api' } };
  return { state: INPUT_REQUIRED, question: 'Which region should the report cover?' };
}

function ask(ctx, bus, step) {
  const parts = step.question
    ? [text(step.question)]
    : [text(`May I run ${step.tool} with ${JSON.stringify(step.args)}? Approve or decline.`), data({ tool: step.tool, args: step.args })];
  bus.publish(status(ctx, step.state, parts));
}

/** The step a task waits on, from its metadata-free history: the last request the agent made. */
function waiting(task) {
  const asked = task?.status?.message;
  if (!asked) return null;
  const d = datum(asked);
  return d ? { state: task.status.state, tool: d.tool, args: d.args } : { state: task.status.state, question: plain(asked) };
}

const executor = {
  async execute(ctx, bus) {
    const message = ctx.userMessage;
    log.received.push({ taskId: ctx.taskId, contextId: ctx.contextId, messageId: message.messageId, text: plain(message), data: datum(message) ?? null });
    const task = ctx.task;
    if (!task) {
      bus.publish(AgentEvent.task({
        id: ctx.taskId, contextId: ctx.contextId, artifacts: [], history: [message], metadata: undefined,
        status: { state: SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      }));
      ask(ctx, bus, plan(plain(message)));
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task(task));
    const step = waiting(task);
    const said = datum(message);
    if (!step || ![INPUT_REQUIRED, AUTH_REQUIRED].includes(task.status.state)) {
      bus.publish(status(ctx, COMPLETED, [text('Nothing is waiting on this task.')]));
    } else if (said?.decision === 'approve' && step.tool) {
      bus.publish(status(ctx, WORKING));
      log.ran.push({ taskId: ctx.taskId, tool: step.tool, args: step.args, receipt: said.receipt ?? null });
      bus.publish(status(ctx, COMPLETED, [text(`Ran ${step.tool}.`)]));
    } else if (said?.decision === 'decline') {
      bus.publish(status(ctx, COMPLETED, [text(`Not run: ${said.reason ?? 'declined'}.`)]));
    } else if (said?.decision === 'answer' && step.question) {
      bus.publish(status(ctx, COMPLETED, [text(`Report for ${JSON.stringify(said.answer)}.`)]));
    } else if (step.tool && /amount (\d+)/.test(plain(message))) {
      // Another client changed what is asked: the agent asks again, with the new arguments.
      ask(ctx, bus, { ...step, args: { ...step.args, amount: Number(/amount (\d+)/.exec(plain(message))[1]) } });
    } else {
      bus.publish(status(ctx, COMPLETED, [text(`Understood: ${plain(message)}`)]));
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(status({ taskId, contextId: '' }, CANCELED));
    bus.finished();
  },
};

const app = express();
const server = app.listen(Number(process.env.A2A_PORT ?? 0), '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'refund-agent',
    description: 'Refunds orders after a person approves (a scripted test agent).',
    supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'refunds', name: 'Refunds', description: 'Refunds an order', tags: ['refund'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const token = process.env.A2A_TOKEN;
  const guard = (req, res, next) => (!token || req.header('authorization') === `Bearer ${token}` ? next() : res.status(401).json({ error: 'unauthorized' }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', guard, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.get('/log', (_req, res) => res.json(log));
  console.log(JSON.stringify({ port: server.address().port }));
});
