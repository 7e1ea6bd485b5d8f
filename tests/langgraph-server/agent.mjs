// A real LangChain agent (`createAgent` from `langchain`) guarded by the real `humanInTheLoopMiddleware`,
// for the LangGraph fixture server. Its model is scripted and network-free: asked by a person, it calls
// two tools in one step (delete_file, write_file); after the tools answered, it says what they said.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';

class ScriptedModel extends BaseChatModel {
  _llmType() {
    return 'scripted';
  }

  bindTools() {
    return this;
  }

  async _generate(messages) {
    const last = messages.at(-1);
    const message =
      last.getType() === 'human'
        ? new AIMessage({
            content: '',
            tool_calls: [
              { id: 'call_delete', name: 'delete_file', args: { path: '/srv/data/old.csv' }, type: 'tool_call' },
              { id: 'call_write', name: 'write_file', args: { path: '/srv/data/new.csv', content: 'a,b' }, type: 'tool_call' },
            ],
          })
        : new AIMessage(`done: ${messages.filter((m) => m.getType() === 'tool').map((m) => m.content).join('; ')}`);
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

const deleteFile = tool(async ({ path }) => `deleted ${path}`, {
  name: 'delete_file',
  description: 'Delete a file',
  schema: z.object({ path: z.string() }),
});

const writeFile = tool(async ({ path, content }) => `wrote ${content.length} bytes to ${path}`, {
  name: 'write_file',
  description: 'Write a file',
  schema: z.object({ path: z.string(), content: z.string() }),
});

export const agent = createAgent({
  model: new ScriptedModel({}),
  tools: [deleteFile, writeFile],
  middleware: [humanInTheLoopMiddleware({ interruptOn: { delete_file: { allowedDecisions: ['approve', 'reject'] }, write_file: true } })],
});
