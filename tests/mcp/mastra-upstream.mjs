// A real @mastra/mcp 2.0 MCPServer over stdio — it speaks only MCP 2026-07-28 (no `initialize`) —
// as the upstream of the MCP gate (tests/mcp/modern.rs). Its tools write to files under ROOT, so
// the test sees what ran and how often:
// - `write_note` {name, text}: appends "name:text" to ROOT/runs.log and writes ROOT/<name>.txt;
// - `deploy` {service}: suspends first (a question: which environment?), then, resumed with
//   {environment}, appends "deploy:service:environment" to ROOT/runs.log.
import { MCPServer } from '@mastra/mcp';
import { createTool } from '@mastra/core/tools';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const root = process.env.ROOT;
if (!root) throw new Error('set ROOT');
const ran = (line) => appendFileSync(join(root, 'runs.log'), line + '\n');

const writeNote = createTool({
  id: 'write_note',
  description: 'Writes a note to a file.',
  inputSchema: z.object({ name: z.string(), text: z.string() }),
  execute: async ({ name, text }) => {
    writeFileSync(join(root, `${name}.txt`), text);
    ran(`${name}:${text}`);
    return `wrote ${name}.txt`;
  },
});

const deploy = createTool({
  id: 'deploy',
  description: 'Deploys a service; asks which environment first.',
  inputSchema: z.object({ service: z.string() }),
  resumeSchema: z.object({ environment: z.string() }),
  execute: async ({ service }, context) => {
    if (!context.resumeData) {
      await context.suspend({ message: `Which environment should ${service} go to?` });
      return undefined;
    }
    ran(`deploy:${service}:${context.resumeData.environment}`);
    return `deployed ${service} to ${context.resumeData.environment}`;
  },
});

const server = new MCPServer({
  id: 'notes',
  name: 'Notes',
  version: '1.0.0',
  tools: { write_note: writeNote, deploy },
  requestState: { key: 'a-test-key-that-is-long-enough-for-hmac-0123456789' },
});
await server.startStdio();
