/** English words of the `queue` section (see ../index.svelte.ts): the console's queue, its list, and the keyboard. */
export const queue = {
  selectPrompt: 'Select a call to review it.',

  // What the last keyboard action or decision did (a polite live region).
  /** `kind`: the decision's kind (approve, edit, decline, resume). */
  decidedNext: (kind: string, tool: string) =>
    `${kind === 'decline' ? 'Declined' : kind === 'resume' ? 'Answered' : kind === 'edit' ? 'Approved (edited)' : 'Approved'} ${tool}. Showing the next call.`,
  /**
   * A shortcut that does not apply to the selected call says why (`key`: the letter pressed); the
   * letter keys then pause until Esc, so a sentence typed after it decides nothing.
   */
  keys: {
    approveSuspend: 'a does nothing here: this call asks a question, it is answered (r), not approved.',
    approveNot: 'a does nothing here: this call cannot be approved.',
    editSuspend: 'e does nothing here: a question has no arguments to edit.',
    editNot: 'e does nothing here: the engine of this call cannot run it with edited arguments.',
    declineNot: 'd does nothing here: the engine of this call cannot decline it.',
    resumeApproval: 'r does nothing here: this call asks for approval (a), not for an answer.',
    decided: (key: string) => `${key} does nothing here: this call is already decided.`,
    blocked: (key: string) => `${key} does nothing here: the arguments shown do not match the fingerprint.`,
    /** `a` on a call the server says cannot be approved as it is (`approveBlocked`), by its code. */
    approveMissing: 'a does nothing here: nobody can see what this call would run, so it can only be declined (d).',
    approveAmbiguous: 'a does nothing here: its numbers cannot be approved as they are; edit them (e) where its engine allows it, or decline (d).',
    approveBlockedOther: 'a does nothing here: this call cannot be approved as it is.',
    selectFirst: (key: string) => `${key} does nothing yet: select a call first (j or ↓).`,
    /** `why`: one of the sentences above. */
    paused: (why: string) => `${why} The letter keys are paused until you press Esc, so what you type next does nothing.`,
    pausedStill: 'The letter keys are paused: press Esc first.',
    back: 'The keys work again.',
    cancelled: 'Cancelled: nothing was decided.',
  },
  /** The banner when the selected call's fingerprint changed under the operator's eyes. */
  fingerprintChanged: (was: string, now: string) => `Fingerprint was ${was}, now ${now}.`,

  // The list.
  heading: 'Calls',
  refresh: 'Refresh',
  stagesLabel: 'Calls by stage',
  /** The list's tabs, by stage. */
  tabs: { pending: 'Pending', awaiting_delivery: 'Awaiting delivery', decided: 'Decided', expired: 'Expired', gone: 'Gone', all: 'All' },
  /** An empty tab. */
  empty: {
    pending: 'Nothing waiting for a decision.',
    awaiting_delivery: 'No decision waiting for delivery.',
    decided: 'No decided calls.',
    expired: 'No call expired.',
    gone: 'No call ended elsewhere.',
    all: 'No calls.',
  },
  /** The next step when nothing waits: how to connect an agent (and the Engines view's). */
  connect: {
    nothingWaiting: 'Nothing is waiting for a decision.',
    title: 'Connect an agent',
    intro: 'Calls pause here before they run. Pick how your agent reaches this console:',
    ways: { 'claude-code': 'Claude Code', http: 'An agent over HTTP', mcp: 'An MCP server' },
    what: {
      'claude-code': "Claude Code asks this console before each Bash, Write, Edit and MCP tool call, through a hook in ~/.claude/settings.json. If the console cannot answer, the call is blocked.",
      http: 'Any agent submits a call with POST /api/calls, then waits for the decision; it runs the tool only once approved.',
      mcp: 'The MCP gate sits in front of any MCP server: a tool call reaches the server only once approved (Claude Desktop, Cursor, VS Code).',
    },
    makeToken: 'Make an agent token',
    making: 'Making…',
    tokenFor: {
      'claude-code': 'An agent credential that may only queue Claude Code calls, never decide.',
      http: 'An agent credential that may only queue calls over HTTP, never decide.',
      mcp: "An agent credential that may only queue the gate's calls, never decide.",
    },
    tokenMade: (name: string) => `Token ${name} made: it is in the lines below.`,
    tokenOnce: 'It is shown only here, only now: copy the lines before you leave.',
    askForToken: 'An admin makes its agent token, in Settings → Tokens or with',
    then: {
      'claude-code': 'In the terminal you start Claude Code from, run:',
      http: "From your agent's machine (the agent's code does the same):",
      mcp: "In your MCP client's configuration (Claude Desktop: claude_desktop_config.json), put the server behind the gate:",
    },
    after: 'The first call shows up here at once; Engines lists every source that has sent one.',
  },
  search: 'Search',
  searchPlaceholder: 'tool, agent, arguments',
  searchHint: 'Searches every call of this tab on the server: each word in the tool name, agent, or arguments.',
  noSearchMatch: 'No call of this tab matches the search.',
  noLoadedMatch: 'No loaded call matches the search.',
  noLoadedMatchSearching: 'No loaded call matches the search (searching…).',
  filters: 'Filters',
  filterEngine: 'Engine',
  filterAgent: 'Agent',
  filterTool: 'Tool',
  filterThread: 'Thread',
  filterKind: 'Kind',
  filterSource: 'Source',
  filterOrder: 'Order',
  anyKind: 'any',
  anySource: 'Any source',
  /** The source filter's choice for `http` (its badge reads `sources.http`). */
  sourceHttpAgent: 'HTTP agent',
  newestFirst: 'newest first',
  oldestFirst: 'oldest first',
  clearFilters: 'Clear filters',
  listNewestFirst: 'Calls, newest first',
  listOldestFirst: 'Calls, oldest first',
  /** A call's kind, as its badge reads. */
  kinds: { approval: 'approval', suspend: 'suspend' },
  /** Where a call comes from, as its badge reads (product names as they are). */
  relay: {
    previewOnly: 'preview only',
    previewOnlyTitle: "Claude Code's channel relayed only a preview of the arguments, cut short: what runs may hold more. An approval is bound to what is shown; an edit cannot reach Claude Code.",
    viaChannel: 'also via channel',
    viaChannelTitle: "Claude Code's channel relayed this same call too: the decision answers both the hook and the channel.",
  },
  sources: { local: 'Local engine', mastra: 'Mastra', langgraph: 'LangGraph', 'ag-ui': 'AG-UI', a2a: 'A2A', http: 'HTTP', 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', mcp: 'MCP', acp: 'ACP', 'openai-agents': 'OpenAI Agents', 'ai-sdk': 'AI SDK', adk: 'ADK', langchain: 'LangChain' },
  /** The source badge's title: where exactly a call of that source comes from. */
  sourceTitles: {
    local: "From the console's local engine",
    mastra: 'From a remote Mastra server',
    langgraph: 'From an interrupted thread of a remote LangGraph server',
    'ag-ui': 'From an interrupt of an AG-UI agent run relayed through the console',
    http: 'From an agent over the HTTP API',
    'claude-code': "From Claude Code's hook",
    codex: "From Codex CLI's hook",
    gemini: "From Gemini CLI's hook",
    mcp: 'From the MCP gate',
    acp: 'From an ACP agent asking for permission (approval-console acp)',
    'openai-agents': "From an OpenAI Agents SDK run's approval step (its adapter)",
    'ai-sdk': "From a Vercel AI SDK tool-approval request (its adapter)",
    adk: "From a Google ADK tool confirmation (its adapter)",
    langchain: "From LangChain's human-in-the-loop middleware (its adapter)",
    a2a: 'From a task of a remote A2A agent that waits for input or authorization',
  },
  /** A call's state, as its badge reads. */
  states: { pending: 'pending', decided: 'decided', delivered: 'delivered', failed: 'failed', interrupted: 'interrupted', gone: 'gone' },
  awaitingDelivery: 'awaiting delivery',
  /** A call's risk from its arguments, as its badge reads (low shows none). */
  riskLevels: { low: 'low risk', medium: 'medium risk', high: 'high risk', critical: 'critical risk' },
  expired: 'expired',
  engineTitle: 'engine',
  /** Who asked for a call (on its row): `{name}` the credential, or the local admin's account. */
  rowRequester: 'via {name}',
  /** The title of that mark, by the principal's kind. */
  requesterTitles: {
    token: 'The credential that submitted this call or started its run',
    local: 'The local admin started this run',
    device: 'A paired device started this run',
  },
  /** `{question}`: the question a suspended call asks (its row's one line). */
  rowAsks: 'Asks: {question}',
  /** The mark on a row whose call holds hidden or look-alike characters (anywhere in it, also past the cut). */
  rowMarked: (n: number) =>
    n === 1 ? '1 hidden or look-alike character: see the details' : `${n.toLocaleString('en')} hidden or look-alike characters: see the details`,
  /** What became of a decided call, on its row. `{operator}`: who decided (`alice (web)`). */
  outcomes: {
    approved: 'Approved by {operator}',
    edited: 'Approved with edits by {operator}',
    declined: 'Declined by {operator}',
    answered: 'Answered by {operator}',
  },
  /** An interrupted call's line: it needs the operator's word, or how it was resolved. */
  resolution: {
    needed: 'Interrupted — did it run? Needs your word',
    ran: 'Resolved: it ran',
    did_not_run: 'Resolved: it did not run',
    run_again: 'Resolved: run again',
  },
  /** `duration`: the time limit that ran out ("15 min"). */
  outcomeExpired: (duration: string) => `Expired after ${duration}, nobody decided`,
  /** After an outcome, the reason given: `{reason}`. */
  outcomeReason: ' — {reason}',
  pausedAtTitle: 'Paused at',
  /** The button that shows or hides the filters; `n`: how many are set. */
  filtersToggle: (n: number) => (n === 0 ? 'Filters' : `Filters (${n.toLocaleString('en')} active)`),
  attempts: (n: number) => (n === 1 ? '1 attempt' : `${n.toLocaleString('en')} attempts`),
  /** `{time}`: when the next delivery attempt is due. */
  nextAttempt: 'next {time}',
  loadingMore: 'Loading more…',

  // Runs and their "approve all / decline all".
  /** `{run}`: the run's id (shortened). */
  runLabel: (n: number) => `Run {run} · ${n === 1 ? '1 call' : `${n.toLocaleString('en')} calls`}`,
  runTitle: (run: string, engine: string) => `run ${run} on ${engine}`,
  approveAll: 'Approve all',
  declineAll: 'Decline all',
  approveAllLabel: (n: number, run: string) => `Approve all ${n.toLocaleString('en')} waiting calls of run ${run}`,
  declineAllLabel: (n: number, run: string) => `Decline all ${n.toLocaleString('en')} waiting calls of run ${run}`,
  /** `{run}`: the run's id. */
  batchApproveAsk: (n: number) => `Approve ${n.toLocaleString('en')} ${n === 1 ? 'call' : 'calls'} of run {run}? Each decision is bound to the fingerprint shown:`,
  batchDeclineAsk: (n: number) => `Decline ${n.toLocaleString('en')} ${n === 1 ? 'call' : 'calls'} of run {run}? Each decision is bound to the fingerprint shown:`,
  batchReason: 'Reason (optional, told to the agent)',
  sending: 'Sending…',
  batchApprove: (n: number) => `Approve ${n.toLocaleString('en')}`,
  batchDecline: (n: number) => `Decline ${n.toLocaleString('en')}`,
  /** `{run}`: the run's id (shortened). */
  batchApproved: (ok: number, total: number) => `Approved ${ok.toLocaleString('en')} of ${total.toLocaleString('en')} in run {run}.`,
  batchDeclined: (ok: number, total: number) => `Declined ${ok.toLocaleString('en')} of ${total.toLocaleString('en')} in run {run}.`,
  dismiss: 'Dismiss',
  /** A call of a batch whose fingerprint no longer matches its arguments as shown. */
  notSentMismatch: 'Not sent: the fingerprint does not match the arguments shown.',

  // The keyboard shortcuts' help.
  shortcutsTitle: 'Keyboard shortcuts',
  shortcutsWhen: 'In the queue, when no field has the focus. Nothing is decided without Enter (or a click) at the end.',
  /** Between two keys of one shortcut. */
  or: 'or',
  /** What each shortcut does (`keys.ts` lists the keys). */
  shortcuts: {
    next: 'Next call (↓ in the list)',
    prev: 'Previous call (↑ in the list)',
    ends: 'First / last call (in the list)',
    select: 'Select the focused call (in the list)',
    open: 'Open the selected call: move to its details',
    approve: 'Approve the open call: asks first, Enter approves, Esc cancels',
    edit: 'Edit the arguments of the open call, then approve them (where its engine allows it)',
    decline: 'Decline the open call: type the reason (optional), Enter sends',
    resume: 'Answer a suspended call: to the first field of its form, Enter sends',
    search: 'Search the calls of this tab',
    help: 'Show or hide these shortcuts',
    escape: 'Cancel what was started (a confirmation, a reason, an answer, an edit: nothing is sent), leave a field, close this help',
    refused: 'A key that does not apply to the call says so, and the letter keys pause until Esc',
  },
};
