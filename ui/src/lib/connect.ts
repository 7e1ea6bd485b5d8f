/**
 * How to connect an agent (issue 45: an empty queue shows the next step): Claude Code's hook, an
 * agent of your own over HTTP, an MCP server behind the gate. Each way's agent credential (made
 * through the tokens operation, role `agent`, limited to its source) and the lines to run, filled
 * with this console's address and the token once made. Pure: the view renders the lines as text.
 */
import type { TokenRequest } from './backend/backend';

export type ConnectWay = 'claude-code' | 'http' | 'mcp';
export const CONNECT_WAYS: readonly ConnectWay[] = ['claude-code', 'http', 'mcp'];

/** The address agents reach this console at: the page's own when it is served over HTTP; `null` else (the desktop window: the default). */
export function consoleUrl(origin: string | null | undefined): string | null {
  return origin && /^https?:\/\/[^/]+$/.test(origin) ? origin : null;
}

/** The console's default address, which the hooks and the gate use when `APPROVAL_CONSOLE_URL` is not set. */
export const DEFAULT_URL = 'http://127.0.0.1:4319';

/** What the token goes by in the lines until one is made. */
export const TOKEN_PLACEHOLDER = 'ac_…';

/** The credential a way needs: an agent token that may queue calls of its source only (`suffix`: a few characters to keep names apart). */
export function tokenRequest(way: ConnectWay, suffix: string): TokenRequest {
  switch (way) {
    case 'claude-code':
      return { name: `claude-hook-${suffix}`, role: 'agent', person: null, agents: ['claude-code'], sources: ['claude-code'] };
    case 'http':
      return { name: `http-agent-${suffix}`, role: 'agent', person: null, agents: null, sources: ['http'] };
    case 'mcp':
      return { name: `mcp-gate-${suffix}`, role: 'agent', person: null, agents: null, sources: ['mcp'] };
  }
}

/** The command that makes the same credential from a terminal (for whoever may not make one here). */
export function tokenCommand(way: ConnectWay): string {
  const r = tokenRequest(way, 'x');
  const name = r.name.replace(/-x$/, '');
  const agents = (r.agents ?? []).map((a) => ` --agent ${a}`).join('');
  const sources = (r.sources ?? []).map((s) => ` --source ${s}`).join('');
  return `approval-console tokens add ${name} --role agent${agents}${sources}`;
}

/** The lines to run (or paste) for `way`, with `token` (or the placeholder) and `url` (or the default). */
export function connectLines(way: ConnectWay, token: string | null, url: string | null): string {
  const t = token ?? TOKEN_PLACEHOLDER;
  const base = url ?? DEFAULT_URL;
  const urlLine = url && url !== DEFAULT_URL ? `export APPROVAL_CONSOLE_URL=${url}\n` : '';
  switch (way) {
    case 'claude-code':
      return `export APPROVAL_CONSOLE_AGENT_TOKEN=${t}\n${urlLine}approval-console hooks install claude-code\nclaude`;
    case 'http':
      return [
        `curl -s -X POST ${base}/api/calls \\`,
        `  -H "Authorization: Bearer ${t}" -H "Idempotency-Key: first-call" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '{"tool":"send_email","args":{"to":"ops@example.com"},"agent":"my-agent"}'`,
        `# then wait for the decision (repeat while "outcome" is "pending"):`,
        `curl -s "${base}/api/calls/CALL_ID?waitSecs=30" -H "Authorization: Bearer ${t}"`,
      ].join('\n');
    case 'mcp': {
      const env: Record<string, string> = { APPROVAL_CONSOLE_AGENT_TOKEN: t };
      if (url && url !== DEFAULT_URL) env.APPROVAL_CONSOLE_URL = url;
      const config = {
        mcpServers: {
          files: {
            command: 'approval-console',
            args: ['mcp-gate', '--timeout', '50', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/me/projects'],
            env,
          },
        },
      };
      return JSON.stringify(config, null, 2);
    }
  }
}
