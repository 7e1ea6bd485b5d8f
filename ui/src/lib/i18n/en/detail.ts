/** English words of the `detail` section (see ../index.svelte.ts): one call in full, its decision, its time limit. */
export const detail = {
  gone: 'gone',
  /** The mark of a high-risk call: rated high or critical by its arguments, or its tool in the high-risk list (Settings). */
  highRisk: 'high risk',
  previewNoEdit: "Preview only: Claude Code's channel cannot carry edited arguments, so no edit is offered. Approve what is shown, or decline and let the agent ask again.",
  highRiskTitle: 'High or critical risk (its arguments, or its tool in the high-risk list in Settings): needs the confirm step; never always allowed, never approved from a notification',
  /** The label of a call's risk section (its level and reasons). */
  riskHeading: 'Risk',
  riskNeedsOperator: 'An operator decides it here: no grant, no Approve from a notification.',
  /** What led to the call: the conversation's last messages. */
  leadTo: {
    heading: 'What led to it',
    fromHook: "The end of the agent's conversation, as its hook read it: written by the user, the model or a tool — untrusted.",
    fromEngine: "The conversation's last messages, as its engine holds them: written by the user, the model or a tool — untrusted.",
    earlier: 'Earlier messages are not shown.',
    roles: { user: 'User', assistant: 'Agent' },
    none: 'No conversation to show:',
  },
  /** `{question}`: what a suspended call asks, as the agent wrote it. */
  asks: 'The agent asks: {question}',
  /** A suspended call's arguments and payload, folded under its question. */
  argsAndPayload: 'Arguments and suspend payload',
  whyPaused: 'Why it paused:',
  /** Who asked for the call, by the principal's kind (`{name}`: a credential, or the local admin's account). */
  requestedBy: {
    token: 'Asked for by credential {name}',
    local: 'Asked for by the local admin {name}',
    device: 'Asked for by the paired device {name}',
  },
  /**
   * Why the call waits (the server's `pauseReason`). `{rule}`: the rule's number (1 for the first);
   * `{agent}`: the agent's id; `{detail}`: what went wrong.
   */
  pauseReasons: {
    tool: 'The tool always requires approval',
    request: 'The request asked to approve every call',
    requestRule: 'Approval rule {rule} of the request matched',
    requestRuleAny: 'An approval rule of the request matched',
    agentRule: 'Approval rule {rule} of agent {agent} matched',
    agentRuleAny: 'An approval rule of agent {agent} matched',
    agentRuleUnnamed: "Approval rule {rule} of the agent's configuration matched",
    agentRuleUnnamedAny: "An approval rule of the agent's configuration matched",
    predicate: "The request's approval check decided so",
    predicateFailed: "The request's approval check failed, so approval is required: {detail}",
    predicateFailedNoDetail: "The request's approval check failed, so approval is required",
    suspended: 'The tool stopped to ask a question',
    remote: 'The remote engine paused it',
    submitted: 'The agent asked before running it',
  },
  /** The identifiers and the rest, below what matters. */
  details: 'Details',
  goneNote: "This call is no longer in the console's queue.",
  /** Presence: `{who}`, the others who have this call open now (`alice (web), bob (desktop)`). */
  viewers: 'Also open now: {who}',
  viewersTitle: 'Someone else is reviewing this call right now, here or on another console of the team',
  agent: 'Agent',
  engine: 'Engine',
  thread: 'Thread',
  resource: 'Resource',
  run: 'Run',
  toolCall: 'Tool call',
  /** A coding agent's hook call: the directory the agent worked in, and the hook's event (`PreToolUse`), as the agent said. */
  workingDirectory: 'Working directory',
  hookEvent: 'Hook event',
  /** An Agent Client Protocol agent's permission request: the choices it offered, and which one each decision here answers with. */
  agentOptions: 'The agent offers',
  optionAllowOnce: 'what Approve answers',
  optionAllowAlways: 'what an “always allow” grant answers',
  optionRejectOnce: 'what Decline answers',
  optionRejectAlways: 'what Decline answers when there is no one-time reject',
  optionUnknown: 'a kind the console never answers with',
  /** A Codex call whose action Codex's own reviewer (auto-review) denied: the label, and what approving it does. */
  codexReviewer: "Codex's reviewer",
  codexReviewerDenied: 'Denied this action; approving it overrides that denial for this one action',
  pausedAt: 'Paused at',
  via: 'Via',
  /** Before the countdown ("expires in 4 min"): a noun, so the line reads "Time limit expires in 4 min", never "Expires expires in". */
  expires: 'Time limit',
  fingerprint: 'Fingerprint',
  copyFingerprint: 'Copy fingerprint',
  snoozeLabel: 'Ask me again later: move the deadline later',
  /** The snooze control's visible label; it decides nothing. */
  askAgainLater: 'Ask me again later:',
  /** `{time}`: the new deadline. */
  deadlineMoved: 'Deadline moved to {time}.',
  arguments: 'Arguments',
  showTree: 'Show tree',
  rawJson: 'Raw JSON',
  suspendPayload: 'Suspend payload',
  decide: 'Decide',
  offline: 'Not connected to the console: deciding is paused until it reconnects (nothing is sent meanwhile).',
  respond: 'Respond to the agent',
  /** Under a suspended call's answer form: refusing to answer. */
  orDecline: 'Or decline to answer',
  editArgs: 'Edit arguments…',
  /** In place of Approve when the server says the call cannot be approved as it is (`approveBlocked`), by its code. */
  blocked: {
    missing_arguments: 'Nobody can see what this call would run',
    ambiguous_arguments: 'These numbers cannot be approved as they are',
    other: 'This call cannot be approved as it is',
  },
  /** `{paths}`: the arguments (JSON Pointers) holding such numbers. */
  blockedPaths: 'The numbers at {paths} are too large to show or bind exactly: what you see may not be what would run.',
  blockedEdit: 'To approve exact values, use Edit arguments…; or decline it.',
  blockedDecline: 'It can only be declined.',
  /**
   * The two-person rule: where a call of a tool with a quorum stands. `approvals`: how many so far;
   * `names`: who, as the audit log names them, joined.
   */
  quorumStanding: (approvals: number, quorum: number, names: string) =>
    approvals === 0 ? `Needs ${quorum} approvals by different operators` : `${approvals} of ${quorum} approvals: ${names}`,
  /** In place of a usable Approve for one who approved the call already. */
  ownRequest: (quorum: number) =>
    `You asked for this call (you started its run or submitted it): it needs ${quorum} approvals by other operators, so you cannot approve it. You can decline it.`,
  approvedByYou: (quorum: number) => `You approved this call. It runs once ${quorum} different operators have approved it; another operator gives the next approval.`,
  /** The note after an approval that did not complete the quorum. */
  approvalRecorded: (approvals: number, quorum: number) => `Your approval was recorded (${approvals} of ${quorum}). The call waits for another operator.`,
  /** `{tool}`: the tool's name; `{fingerprint}`: the call's fingerprint, shortened. */
  runsWith: 'runs {tool} with the arguments above (fingerprint {fingerprint})',
  declineReason: 'Reason for declining',
  declineReasonNote: '(optional, told to the agent)',
  /** The same note for a LangGraph Agent Inbox request: what its server does with the reason. */
  inboxDeclineNotes: {
    'respond-or-ignore': '(sent to the graph as the response; leave it empty to ignore the request)',
    respond: '(sent to the graph as the response)',
    ignore: '(this request can only be ignored: the reason stays in the audit log)',
  },
  presetsLabel: 'Preset reasons',
  /**
   * The preset decline reasons (`decline-presets.ts`): a click fills the reason, which is sent to the
   * agent as shown, so the operator's language is what the model reads.
   */
  presets: { notAuthorised: 'Not authorised', wrongTarget: 'Wrong target', tooRisky: 'Too risky' },

  // The confirm step before every approval.
  /** `{tool}`: the tool's name. */
  confirmApprove: 'Approve {tool}?',
  confirmHint: 'Enter to confirm, Esc to cancel.',
  confirmHintHighRisk: 'High risk. Enter to confirm, Esc to cancel.',

  // The decision taken.
  decisionLabel: 'Decision',
  /** `duration`: the call's time limit ("15 min"). */
  expiredAfter: (duration: string) => `Expired after ${duration} — nobody decided`,
  approved: 'Approved',
  approvedEdited: 'Approved with edited arguments',
  declined: 'Declined',
  answered: 'Answered (resumed)',
  /** The decision in one sentence: `{verb}` (approved…), `{operator}` (`alice (web)`), `{time}`. */
  outcomeBy: '{verb} by {operator} at {time}',
  /** An expiry's sentence: `{verb}` is `expiredAfter`. */
  outcomeExpired: '{verb} ({time})',
  /** After the decision: the reason given. */
  outcomeReason: ' — reason: {reason}',
  /** After the decision: where its delivery stands (one of `deliveredTo`, or `interrupted`). */
  outcomeDelivery: ' · {delivery}',
  deliveredTo: {
    pending: 'not delivered to the engine yet',
    delivering: 'being delivered to the engine',
    delivered: 'delivered to the engine',
    failed: 'the engine answered with an error',
  },
  interrupted: 'interrupted while the tool ran (never run again)',
  /** An interrupted call (the console stopped while its tool ran) and what the operator says became of it. */
  resolve: {
    heading: 'Interrupted: did it run?',
    what: "The console stopped while this call's tool was running, so it is not known whether it ran. It was not run again.",
    waits: 'Its run waits for your word: say what became of the call.',
    none: "The call's engine cannot be told what became of it now, so it cannot be resolved here.",
    ran: 'It ran',
    resultLabel: 'What it returned (told to the agent)',
    resultNote: '(optional: JSON, or plain text)',
    resultJson: 'Sent as JSON.',
    resultText: 'Not JSON: sent as text.',
    resultNone: 'Left empty, the agent is told the tool ran and its result was lost.',
    didNotRun: 'It did not run — tell the agent it failed',
    runAgain: 'Run it again',
    /** `{tool}`: the tool's name; `{fingerprint}`: the call's fingerprint, shortened. */
    runAgainNote: 'runs {tool} again with the same arguments (fingerprint {fingerprint})',
    /** The confirm step before running the tool again. `{tool}`: the tool's name. */
    confirmRunAgain: 'Run {tool} again?',
    /** `{operator}` (`alice (web)`), `{time}`, `{kind}`: one of `kinds`. */
    resolvedBy: 'Resolved by {operator} at {time}: {kind}',
    kinds: { ran: 'it ran', did_not_run: 'it did not run', run_again: 'run again' },
    told: 'What the agent was told',
    /** `{id}`: the new queue entry that ran the call again. */
    retry: 'The new entry that ran it: {id}',
    openRetry: 'Open it',
  },
  shown: 'Shown',
  ran: 'Ran',
  reason: 'Reason',
  shownTitle: 'The fingerprint of the call as it was shown',
  ranTitle: 'The fingerprint of the edited arguments the tool ran with',
  awaitingDelivery: 'Awaiting delivery.',
  /** `{engine}`: the engine's name. */
  delivering: 'The decision is being sent to engine {engine} now.',
  notDelivered: 'Engine {engine} has not received this decision yet; the console keeps trying.',
  /** A LangGraph request of an interrupt of `n`: its graph takes all answers at once. */
  heldForSiblings: (n: number) => `This interrupt holds ${n.toLocaleString('en')} requests and its graph takes their answers at once: this decision is sent with the others once all are decided.`,
  attempts: 'Attempts',
  lastError: 'Last error',
  nextAttempt: 'Next attempt',
  editedArgs: 'Edited arguments',
  dataSent: 'Data sent',
  dataSentLabel: 'Resume data sent',
  outcome: 'Outcome',
  /**
   * The decision's signed receipt (docs/receipts.md), as it reads: the console shows it, the place
   * where the tool runs checks it. `decidedBy`: the label of its `approvers`, by its `decision`.
   */
  receipt: {
    heading: 'Signed receipt',
    note: 'Shown as it reads: its signature is checked where the tool runs, not here.',
    id: 'Receipt ID',
    key: 'Key ID',
    decidedBy: { approved: 'Approved by', declined: 'Declined by', answered: 'Answered by', other: 'Decided by' },
    validUntil: 'Valid until',
    copy: 'Copy receipt',
  },

  // Time limits (`expiry.ts`): durations, countdowns.
  /** `when`: the deadline as a local date and time. */
  expiresAt: (when: string) => `Expires at ${when}`,
  /** `left`: a duration ("4 min"). */
  expiresIn: (left: string) => `expires in ${left}`,
  expiringNow: 'expiring now',
  days: (n: number) => (n === 1 ? '1 day' : `${n} days`),
  hours: (n: number) => `${n} h`,
  minutes: (n: number) => `${n} min`,
  seconds: (n: number) => `${n} s`,

  copyFailed: 'Copy failed: select the text and copy it by hand',
  /** Before a refused request's error code. */
  errorCode: 'code:',
};
