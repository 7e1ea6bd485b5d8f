import { describe, expect, it } from 'vitest';
import { connectLines, consoleUrl, DEFAULT_URL, TOKEN_PLACEHOLDER, tokenCommand, tokenRequest } from './connect';

describe('connecting an agent', () => {
  it('asks for an agent credential that may queue calls of its own source only', () => {
    expect(tokenRequest('claude-code', 'ab12')).toEqual({ name: 'claude-hook-ab12', role: 'agent', person: null, agents: ['claude-code'], sources: ['claude-code'] });
    expect(tokenRequest('http', 'ab12')).toMatchObject({ role: 'agent', sources: ['http'], agents: null });
    expect(tokenRequest('mcp', 'ab12')).toMatchObject({ role: 'agent', sources: ['mcp'] });
    expect(tokenCommand('claude-code')).toBe('approval-console tokens add claude-hook --role agent --agent claude-code --source claude-code');
  });

  it('fills the lines with the token made and this console\'s address, the default left out', () => {
    const url = consoleUrl('http://127.0.0.1:5555');
    expect(url).toBe('http://127.0.0.1:5555');
    expect(consoleUrl('tauri://localhost')).toBeNull();
    const cc = connectLines('claude-code', 'ac_secret', url);
    expect(cc).toBe('export APPROVAL_CONSOLE_AGENT_TOKEN=ac_secret\nexport APPROVAL_CONSOLE_URL=http://127.0.0.1:5555\napproval-console hooks install claude-code\nclaude');
    expect(connectLines('claude-code', null, DEFAULT_URL)).not.toContain('APPROVAL_CONSOLE_URL');
    expect(connectLines('claude-code', null, null)).toContain(TOKEN_PLACEHOLDER);
    expect(connectLines('http', 'ac_secret', url)).toContain('curl -s -X POST http://127.0.0.1:5555/api/calls');
    const mcp = JSON.parse(connectLines('mcp', 'ac_secret', url));
    expect(mcp.mcpServers.files.args.slice(0, 1)).toEqual(['mcp-gate']);
    expect(mcp.mcpServers.files.env).toEqual({ APPROVAL_CONSOLE_AGENT_TOKEN: 'ac_secret', APPROVAL_CONSOLE_URL: 'http://127.0.0.1:5555' });
  });
});
