// A frontend on the official @ag-ui/client: an HttpAgent pointed at a URL (the console's AG-UI
// endpoint for an engine) with a bearer token, runs one turn of a thread and prints what it saw as one
// JSON line: {outcome, interrupts, error}.
//   node client.mjs URL TOKEN THREAD TEXT [FORWARDED_PROPS_JSON] [RESUME_JSON]
import { HttpAgent } from '@ag-ui/client';

const [url, token, threadId, text, props, resume] = process.argv.slice(2);
const agent = new HttpAgent({ url, headers: { authorization: `Bearer ${token}` }, threadId });
agent.addMessage({ id: `u-${Date.now()}`, role: 'user', content: text });
let finished = null;
let error = null;
try {
  await agent.runAgent(
    { forwardedProps: props ? JSON.parse(props) : {}, ...(resume ? { resume: JSON.parse(resume) } : {}) },
    {
      onRunFinishedEvent: ({ event }) => {
        finished = event;
      },
      onRunErrorEvent: ({ event }) => {
        error = event.message;
      },
    },
  );
} catch (e) {
  error = error ?? String(e.message ?? e);
}
console.log(JSON.stringify({ outcome: finished?.outcome ?? null, interrupts: finished?.outcome?.interrupts ?? [], error }));
