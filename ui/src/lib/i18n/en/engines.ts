/** English words of the `engines` section (see ../index.svelte.ts): remote engines, their cards and the add form. */
export const engines = {
  viewTitle: 'Engines and sources',
  title: 'Remote engines',
  sourcesTitle: 'Sources seen',
  sourcesIntro: 'Everything that has sent a call here: the local engine, remote engines, agents over HTTP, the Claude Code and Codex hooks, the MCP gate; with the engine holding its calls and its agents.',
  sourcesNone: 'No call has come from any source yet.',
  sourceColumns: { source: 'Source', engine: 'Engine', agents: 'Agents', calls: 'Calls', pending: 'Waiting', last: 'Last call' },
  moreAgents: (n: number) => `and ${n} more`,
  refresh: 'Refresh',
  refreshNote: (secs: number) => `Health is checked again every ${secs} s while this view is open.`,
  intro:
    'Mastra and LangGraph servers and A2A agents whose paused tool calls come to this console. The local engine (agents run in this process) is always on and not listed here.',
  empty: 'No remote engines yet. Add one below.',
  /** For a token that may not add or change engines (an operator), in place of the add form. */
  emptyReadOnly: 'No remote engines.',
  adminOnly: 'Only an admin adds, edits or removes engines: with this token you can see their health, sync them and list their agents.',
  /** An engine's health state; an unknown state is shown as it came. */
  health: { unknown: 'unknown', reachable: 'reachable', unreachable: 'unreachable', auth_failed: 'auth failed', token_required: 'token required for this URL', incompatible: 'incompatible' },
  tokenSession: 'token for this session only',
  tokenStored: 'token stored',
  tokenNone: 'no token',
  baseUrl: 'Base URL',
  healthTitle: 'Health',
  /** `{time}`: when the last error was seen. */
  lastErrorSeen: 'seen {time}',
  lastOk: 'Last OK',
  never: 'never',
  pending: 'Pending calls',
  awaitingDelivery: 'Awaiting delivery',
  pollInterval: 'Poll interval',
  syncedBy: 'Synced by',
  syncedElsewhere: 'another console of the team, which also delivers its decisions',
  reenterToken: 'Enter token again',
  sync: 'Sync now',
  syncing: 'Syncing…',
  agents: 'Agents',
  agentsOf: (name: string) => `Agents of ${name}`,
  /** Each place is a count. */
  synced: 'Synced: {added} added, {changed} changed, {gone} gone, {skipped} skipped',
  syncedFrom: (listed: number, agents: number, full: boolean) =>
    `(${listed} listed from ${agents} ${agents === 1 ? 'agent' : 'agents'}${full ? '' : ', recent runs only'})`,
  /** A LangGraph server's sync: calls listed from its interrupted threads, over how many graphs. */
  syncedFromGraphs: (listed: number, graphs: number) => `(${listed} listed from interrupted threads of ${graphs} ${graphs === 1 ? 'graph' : 'graphs'})`,
  confirmRemoval: (name: string) => `Confirm removal of ${name}`,
  /** `{name}`: the engine's name. */
  removeSession: 'Remove engine {name}? Its token for this session is dropped; its calls stay in the queue as history.',
  removeStored: 'Remove engine {name}? Its stored token is deleted from the keyring; its calls stay in the queue as history.',
  removeNamed: (name: string) => `Remove ${name}`,
  editNamed: (name: string) => `Edit ${name}`,
  pollIntervalMs: 'Poll interval (ms)',
  newToken: 'New token',
  newTokenLost: '(the one given for the last session is gone: enter it again)',
  newTokenKeep: '(optional; leave empty to keep the current one)',
  newTokenNone: '(optional; leave empty for none)',
  forgetToken: 'Forget the token',
  /** The base URL changes while a token is stored: the token must be given again, or kept on purpose. */
  urlChangesToken:
    'The address changes: enter the token again for the new address, or tick below to send the stored token there. A token must not follow an address to another host by accident.',
  keepToken: 'Keep the stored token for the new address',
  newTokenForUrl: '(needed for the new address, unless you keep the stored one)',
  tokenMissing: 'Enter the token for the new address, or tick "Keep the stored token for the new address". Nothing was saved.',
  sessionOnly: 'Keep this token for this session only (not stored; you will be asked again after a restart)',

  addTitle: 'Add engine',
  adding: 'Adding…',
  name: 'Name',
  nameHint: '(letters, digits, . _ -; also the engine id in the queue)',
  kind: 'Kind',
  /** Which API a remote engine speaks (product names as they are). */
  kinds: { mastra: 'Mastra', langgraph: 'LangGraph', a2a: 'A2A' },
  /** What the base URL looks like for each kind. */
  baseUrlHints: { mastra: '(e.g. http://127.0.0.1:4111; its API is under /api)', langgraph: '(e.g. http://127.0.0.1:2024)', a2a: '(e.g. http://127.0.0.1:9999; where its /.well-known/agent-card.json is)' },
  interruptedCount: (n: number) => (n === 1 ? '1 interrupted thread' : `${n.toLocaleString('en')} interrupted threads`),
  token: 'Token',
  tokenHint: '(optional; stored in the OS keyring, never shown again)',
  test: 'Test connection',
  testing: 'Testing…',
  added: (name: string) => `Added engine ${name}; it is being synced.`,
  agentCount: (n: number) => (n === 1 ? '1 agent' : `${n.toLocaleString('en')} agents`),
  nothingSaved: 'Nothing was saved.',
};
