/**
 * English words of the `grants` section (see ../index.svelte.ts): the grants view and the
 * "Always allow…" form. Places in `{braces}` are names and values from the engine, shown marked.
 */
export const grants = {
  title: 'Grants',
  intro:
    '"Always allow" rules made from a call: a later call of the same tool in the grant\'s scope, meeting its conditions, is approved by the console without asking, until the grant expires or is revoked. High-risk tools are never always allowed.',
  revokedNote: (tool: string) => `Revoked the grant for ${tool}.`,
  empty: 'No grants. Make one from a waiting call\'s details: "Always allow…".',
  states: { live: 'live', expired: 'expired', revoked: 'revoked' },
  conditions: 'Conditions',
  noConditions: 'none: every call in scope',
  /** Between two conditions. */
  and: ' and ',
  uses: 'Uses',
  expires: 'Expires',
  expired: 'Expired',
  made: 'Made',
  madeBy: '{time} by {who}',
  revoked: 'Revoked',
  revokedBy: '{time} by {who}',
  confirmRevoke: 'Confirm revoking this grant',
  revokeQuestion:
    'Revoke it? Later calls will wait for a decision again. Of the rules it wrote back to coding agents, the console removes those it safely can from their files (after a backup) and lists the ones to remove by hand; a session rule stays until that session ends.',
  /** The rules a grant's approvals told coding agents, listed with the grant. */
  written: 'Rules written back',
  ruleScopeShort: { session: 'session', project: 'project', user: 'user' },
  /** `where`: a file, or `writtenSession`. */
  writtenIn: (agent: string, scope: string, where: string) => `${agent} (${scope} scope), in ${where}`,
  writtenSession: "the agent's session",
  /** After revoking: what became of each rule it wrote back. */
  removalsHeading: 'What became of the rules it wrote back',
  removed: (where: string, backup: string) => `removed from ${where} (backup at ${backup})`,
  stays: "stays in the agent's session until that session ends",
  byHand: (where: string) => `remove it by hand from ${where}`,
  revoke: 'Revoke',
  revokeAsk: 'Revoke…',
  revokeFor: (tool: string) => `Revoke the grant for ${tool}`,

  open: 'Approve and always allow…',
  heading: 'Approve {tool} now and always allow it',
  /** What saving the grant does to the call on screen. */
  alsoThisCall: 'Saving approves this call at once, then every later call the rule covers.',
  scope: 'Scope',
  scopes: { run: 'This run', agent: 'This agent', engine: 'Every agent of this engine' },
  /** What a grant of each scope covers. */
  scopeText: {
    run: 'every {tool} call of run {run} (agent {agent} on engine {engine})',
    agent: 'every {tool} call of agent {agent} on engine {engine}',
    engine: 'every {tool} call of any agent on engine {engine}',
  },
  /** The comparisons, as the form's choices. */
  ops: { equals: 'equals', prefix: 'starts with', glob: 'matches the glob', regex: 'matches the regex', atMost: 'is at most', atLeast: 'is at least' },
  /** A condition as a clause. */
  conditionText: {
    equals: '{key} equals {value}',
    prefix: '{key} starts with {value}',
    glob: '{key} matches the glob {value}',
    regex: '{key} matches the regex {value}',
    atMost: '{key} is at most {value}',
    atLeast: '{key} is at least {value}',
  },
  preview: 'Approves {scope}, without asking.',
  previewWhen: 'Approves {scope} when {conditions}, without asking.',
  madeText: 'Always allowed until {time}: {scope}. Revoke it under Grants.',
  madeWhen: 'Always allowed until {time}: {scope} when {conditions}. Revoke it under Grants.',
  onlyWhen: 'Only when',
  optional: '(optional)',
  howCompared: (key: string) => `How ${key} is compared`,
  startsWithWhat: (key: string) => `What ${key} starts with`,
  lifetime: 'For',
  hours: (n: number) => (n === 1 ? '1 hour' : `${n} hours`),
  days: (n: number) => (n === 1 ? '1 day' : `${n} days`),
  boundTo: 'Bound to this call as shown: fingerprint {fingerprint}',
  saving: 'Saving…',
  /** The buttons that lead to the confirm step. */
  save: 'Approve this call and always allow…',
  /** While the calls it would approve are asked for, before the confirm step. */
  checking: 'Checking the calls waiting now…',

  /** Beside "Only when" for a shell-like tool. */
  required: '(needed)',
  /** A shell-like tool (`{tool}`): the grant cannot be made without a condition. */
  needsCondition: '{tool} runs whatever command it is given: tick a condition on its arguments (for example "starts with" or "matches the glob") to always allow it.',
  /** Near a "starts with" condition. */
  prefixNote: 'A command chained after the prefix (&&, ||, ;, |, a newline, $( ), ${ }, backticks, < or >) is never covered: such a call still waits for you.',
  globNote: 'The whole value must match: * stands for any run of characters, ? for one, neither ever for a shell control character (; & | < > a newline, a backtick, $( or ${).',
  regexNote: 'The whole value must match (the regular expression is anchored at both ends).',
  /** At the condition the server refused (`grant_too_broad`), by its reason. */
  refused: {
    matchesEverything: 'This matches nearly any text, so it limits nothing: describe the commands it allows.',
    notOnCommand: 'Needed: a condition on this argument, the command itself. Conditions on other arguments (such as a description the agent writes) leave it free to run anything.',
  },
  globWhat: (key: string) => `The glob all of ${key} must match`,
  regexWhat: (key: string) => `The regular expression all of ${key} must match`,

  /** The list of waiting calls the grant would approve now. */
  waitingListLabel: 'The waiting calls it approves now',
  /** The list holds the first ones only. */
  waitingMore: (n: number) => `and ${n.toLocaleString('en')} more`,
  /** Marks the call on screen in that list. */
  thisCall: '(this call)',
  /** `{agent}`: the agent of a listed call. */
  listedAgent: 'agent {agent}',
  /** `{who}`: the credential (or local account) that asked for a listed call. */
  listedBy: 'asked by {who}',

  /** The confirm step: what making the grant approves now. */
  confirmHeading: (n: number) =>
    n === 1 ? 'Approve this waiting call now and always allow later ones?' : `Approve these ${n.toLocaleString('en')} waiting calls now and always allow later ones?`,
  confirmApprove: (n: number) => (n === 1 ? 'Approve this call and allow later ones' : `Approve these ${n.toLocaleString('en')} calls and allow later ones`),
  /** The confirm step of a grant that approves no call now. */
  confirmLaterHeading: 'Always allow later calls? It approves no call waiting now.',
  confirmLater: 'Always allow later calls',
  /** Back from the confirm step to the form. */
  back: 'Back',

  /** How many calls waiting now the grant would approve at once (asked of the server as the form changes). */
  waitingCounting: 'Counting the calls waiting now…',
  waitingThis: 'Approves this call.',
  waitingThisAndMore: (n: number) => `Approves this call and ${n.toLocaleString('en')} more waiting now.`,
  waitingOthers: (n: number) => `Approves ${n === 1 ? '1 call' : `${n.toLocaleString('en')} calls`} waiting now, not this one.`,
  waitingNone: 'No call waiting now is covered.',
  /** Before the error, when the count could not be had. */
  waitingUnknown: 'How many waiting calls it would approve is not known:',
  /** `applyToWaiting: false`. */
  shadow: 'In shadow: approve nothing, and report what it would have approved beside what operators decide',
  madeShadow: 'Made in shadow: it approves nothing. Grants shows what it would have done.',
  shadowBadge: 'shadow',
  shadowTitle: 'Approves nothing: the report above shows what it would have done',
  shadowHeading: 'What the shadow grants would have done',
  shadowWould: (n: number) => `would have approved ${n === 1 ? '1 call' : `${n} calls`}`,
  shadowAgreed: (n: number) => `${n} approved by an operator too`,
  shadowDeclined: (n: number) => `${n} declined by an operator (it would have let ${n === 1 ? 'it' : 'them'} through)`,
  shadowExpired: (n: number) => `${n} expired;`,
  shadowWaiting: (n: number) => `${n} still waiting`,
  shadowHeldBack: (n: number) => `${n} more it covers are high-risk or under a quorum: it would not have approved them`,
  shadowSaved: 'Waiting it would have saved:',
  leaveWaiting: 'Approve only later calls: leave the calls already waiting for me (this one too)',
  leaveWaitingNow: 'Approves no call now: the calls already waiting stay for you, this one too. Only calls paused from now on are approved.',
  headingLater: 'Always allow later calls of {tool}',
  alsoLater: 'Saving approves nothing now; every later call the rule covers is approved.',
  saveLater: 'Always allow later calls…',
  /** In shadow the form approves nothing: its heading, what saving does, its button. */
  headingShadow: 'Try a rule for {tool} in shadow',
  ruleScope: 'Where the agent keeps the rule it is told',
  ruleScopes: { session: 'Its session (until the session ends)', project: "Its project's settings (outlives the grant)", user: "Its user's settings (outlives the grant)" },
  ruleTold: 'With each approval of this grant, {agent} is told this rule:',
  ruleWhere: 'kept in {where}',
  ruleInSession: "the agent's session",
  ruleNone: 'Nothing is written back to the agent for this call in this scope.',
  ruleOneScope: "This agent takes no rule scopes here (Codex's app-server answers acceptForSession): its session only.",
  alsoShadow: 'Saving approves nothing, now or later: the rule only reports what it would have approved.',
  saveShadow: 'Make it in shadow…',
  /** Why a submitted call's grant has no "This run" (each call an agent submits is a run of its own). */
  noRunScope: 'Not "This run": each call this agent submits is a run of its own, so such a rule would approve nothing later.',
  /** After the grant was made: what it approved at once. */
  madeApproved: (n: number) =>
    n === 0 ? 'It approved no call waiting.' : n === 1 ? 'It approved 1 call waiting at once.' : `It approved ${n.toLocaleString('en')} calls waiting at once.`,
  madeLeft: 'The calls already waiting stay for you.',
};
