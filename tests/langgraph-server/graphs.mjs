// Graphs of the LangGraph fixture server (the official JS dev server, `langgraphjs dev`), one per
// interrupt convention a LangGraph engine of the console reads; no model, no network.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Annotation, END, interrupt, Send, START, StateGraph } from '@langchain/langgraph';

const Email = Annotation.Root({ to: Annotation(), result: Annotation() });

/** Agent Inbox's `HumanInterrupt`: a list of one request, answered by a list of one `HumanResponse`. */
export const inbox = new StateGraph(Email)
  .addNode('send_email', async (state) => {
    const [response] = interrupt([
      {
        action_request: { action: 'send_email', args: { to: state.to ?? 'a@example.com', subject: 'Invoice' } },
        config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
        description: 'Send the invoice email?',
      },
    ]);
    return { result: response };
  })
  .addEdge(START, 'send_email')
  .addEdge('send_email', END)
  .compile();

const Calls = Annotation.Root({ result: Annotation() });

/** LangChain's `humanInTheLoopMiddleware` shape: action requests and review configs, answered by `{decisions}`. */
export const hitl = new StateGraph(Calls)
  .addNode('tools', async () => {
    const answer = interrupt({
      actionRequests: [
        { name: 'delete_file', args: { path: '/srv/data/old.csv' }, description: 'Delete a file' },
        { name: 'write_file', args: { path: '/srv/data/new.csv', content: 'a,b' }, description: 'Write a file' },
      ],
      reviewConfigs: [
        { actionName: 'delete_file', allowedDecisions: ['approve', 'reject'] },
        { actionName: 'write_file', allowedDecisions: ['approve', 'edit', 'reject'] },
      ],
    });
    return { result: answer };
  })
  .addEdge(START, 'tools')
  .addEdge('tools', END)
  .compile();

const Question = Annotation.Root({ region: Annotation() });

/** A plain `interrupt(value)`: a call that waits for data. */
export const ask = new StateGraph(Question)
  .addNode('pick', async () => ({ region: interrupt('Which region should the backup go to?') }))
  .addEdge(START, 'pick')
  .addEdge('pick', END)
  .compile();

const Pair = Annotation.Root({ answers: Annotation({ reducer: (a, b) => [...(a ?? []), ...b], default: () => [] }) });

/** Asks to refund `state.order` (an Agent Inbox request that may be accepted or ignored): the answer. */
function askRefund(state) {
  const [response] = interrupt([
    {
      action_request: { action: 'refund_order', args: { order: state.order } },
      config: { allow_accept: true, allow_edit: false, allow_respond: false, allow_ignore: true },
      description: `Refund ${state.order}?`,
    },
  ]);
  return response;
}

/** Two interrupts at once (parallel branches), answered one by one by interrupt id. */
export const pair = new StateGraph(Pair)
  .addNode('approve', async (state) => ({ answers: [{ order: state.order, response: askRefund(state) }] }))
  .addConditionalEdges(START, () => [new Send('approve', { order: 'ord-1' }), new Send('approve', { order: 'ord-2' })])
  .addEdge('approve', END)
  .compile();

const Gated = Annotation.Root({
  gate: Annotation(),
  answers: Annotation({ reducer: (a, b) => [...(a ?? []), ...b], default: () => [] }),
});

/**
 * `pair`, whose run after an answer goes on only once the file named by `gate` exists: a resume run
 * the tests hold open (the thread stays `busy`) to see that a decision is sent without waiting for
 * the graph, and what becomes of a decision for a thread that is busy.
 */
export const gated = new StateGraph(Gated)
  .addNode('approve', async (state) => {
    const response = askRefund(state);
    while (!existsSync(state.gate)) await new Promise((resolve) => setTimeout(resolve, 50));
    return { answers: [{ order: state.order, response }] };
  })
  .addConditionalEdges(START, (state) => [
    new Send('approve', { order: 'ord-1', gate: state.gate }),
    new Send('approve', { order: 'ord-2', gate: state.gate }),
  ])
  .addEdge('approve', END)
  .compile();

const Review = Annotation.Root({ requests: Annotation(), result: Annotation() });

/**
 * The middleware's shape, with requests a graph builds from outside data when its node runs (here the
 * JSON file named by `requests`): run again from where it stopped (a run with no input), the node
 * interrupts again under the same interrupt id with the requests as they are then. After the answer
 * it runs each approved (or edited) request, appending `{name, args}` to `<requests>.ran`, one JSON
 * line each: what ran, as the tests read it.
 */
export const review = new StateGraph(Review)
  .addNode('tools', async (state) => {
    const requests = JSON.parse(readFileSync(state.requests, 'utf8'));
    const answer = interrupt({
      actionRequests: requests,
      reviewConfigs: requests.map((r) => ({ actionName: r.name, allowedDecisions: ['approve', 'reject'] })),
    });
    requests.forEach((r, i) => {
      const d = answer.decisions?.[i];
      const ran = d?.type === 'approve' ? r : d?.type === 'edit' ? d.editedAction : null;
      if (ran) appendFileSync(`${state.requests}.ran`, `${JSON.stringify({ name: ran.name, args: ran.args })}\n`);
    });
    return { result: answer };
  })
  .addEdge(START, 'tools')
  .addEdge('tools', END)
  .compile();
