/** English words of the `tokens` section (see ../index.svelte.ts): Settings → Tokens, the credentials an admin makes and revokes. */
export const tokens = {
  title: 'Tokens',
  intro:
    'Credentials for agents, operators and dashboards, each with a role. The console keeps only a hash of each token: a new one is shown once, when it is made. Changes apply at once, nothing to save.',
  none: 'No tokens yet. Make one below for an agent (the hooks, the MCP gate, an HTTP agent), a colleague, or a dashboard.',
  name: 'Name',
  role: 'Role',
  person: 'Person',
  claims: 'Its calls',
  created: 'Made',
  lastUsed: 'Last used',
  never: 'never',
  actions: 'Actions',
  /** A credential's claims: whose names its submitted calls may carry. */
  claimOwnName: 'agent: its own name',
  claimAgents: (agents: string) => `agents ${agents}`,
  claimSources: (sources: string) => `from ${sources}`,
  revoke: 'Revoke',
  revokeLabel: (name: string) => `Revoke the token ${name}`,
  confirmRevoke: (name: string) => `Revoke ${name} now`,
  revoking: 'Revoking…',
  revoked: (name: string) => `Revoked ${name}: its token no longer works.`,
  makeTitle: 'Make a token',
  namePlaceholder: 'e.g. claude-code or alice',
  /** What each role may do, under the role picker. */
  roleHints: {
    agent: 'An agent: submits calls and waits for the decision; never sees the queue or decides.',
    operator: 'An operator: sees the queue and decides; cannot change settings, grants, engines or tokens.',
    viewer: 'A viewer: the statistics and metrics only, nothing of the queue.',
    admin: 'An admin: everything, including settings, engines and tokens.',
  },
  more: 'Person and what its calls may claim (optional)',
  personPlaceholder: 'default: its name',
  agents: 'Agent names',
  agentsPlaceholder: 'default: its own name',
  sources: 'Sources',
  sourcesPlaceholder: 'http, claude-code, codex, gemini, mcp, acp; default: any',
  claimsHint:
    'Person: whose token it is, for the two-person rule (one person approves once, whatever token they use). Agent names and sources: comma-separated; what the calls this token submits may say they come from.',
  make: 'Make token',
  making: 'Making…',
  /** `role`: the role's word. */
  madeTitle: (name: string, role: string) => `Token ${name} (${role}) made`,
  madeOnce: 'Copy it now: it is shown only this once. Lost, it cannot be recovered: revoke it and make another.',
  done: 'Done, I copied it',
};
