/** English words of the `detail` section (see ../index.svelte.ts): one call in full, its decision, its time limit. */
export const detail = {
  gone: 'gone',
  goneNote: "This call is no longer in the console's queue.",
  agent: 'Agent',
  engine: 'Engine',
  thread: 'Thread',
  resource: 'Resource',
  run: 'Run',
  toolCall: 'Tool call',
  pausedAt: 'Paused at',
  via: 'Via',
  expires: 'Expires',
  fingerprint: 'Fingerprint',
  copyFingerprint: 'Copy fingerprint',
  snoozeLabel: 'Snooze: move the deadline later',
  /** `{time}`: the new deadline. */
  deadlineMoved: 'Deadline moved to {time}.',
  arguments: 'Arguments',
  showTree: 'Show tree',
  rawJson: 'Raw JSON',
  suspendPayload: 'Suspend payload',
  decide: 'Decide',
  respond: 'Respond to the agent',
  editArgs: 'Edit arguments…',
  /** `{tool}`: the tool's name; `{fingerprint}`: the call's fingerprint, shortened. */
  runsWith: 'runs {tool} with the arguments above (fingerprint {fingerprint})',
  declineReason: 'Reason for declining',
  declineReasonNote: '(optional, told to the agent)',
  presetsLabel: 'Preset reasons',
  /**
   * The preset decline reasons (`decline-presets.ts`): a click fills the reason, which is sent to the
   * agent as shown, so the operator's language is what the model reads.
   */
  presets: { notAuthorised: 'Not authorised', wrongTarget: 'Wrong target', tooRisky: 'Too risky', askLater: 'Ask me again later' },

  // The confirm step for a high-risk tool.
  /** `{tool}`: the tool's name. */
  confirmApprove: 'Approve {tool}?',
  confirmHint: 'High-risk tool. Enter to confirm, Esc to cancel.',

  // The decision taken.
  decisionLabel: 'Decision',
  /** `duration`: the call's time limit ("15 min"). */
  expiredAfter: (duration: string) => `Expired after ${duration} — nobody decided`,
  approved: 'Approved',
  approvedEdited: 'Approved with edited arguments',
  declined: 'Declined',
  answered: 'Answered (resumed)',
  /** `delivery`: one of `deliveries`. */
  deliveryBadge: (delivery: string) => `delivery: ${delivery}`,
  /** `state`: one of the queue's `states`. */
  stateBadge: (state: string) => `state: ${state}`,
  deliveries: { pending: 'pending', delivering: 'delivering', delivered: 'delivered', failed: 'failed' },
  by: 'By',
  at: 'At',
  shown: 'Shown',
  ran: 'Ran',
  reason: 'Reason',
  shownTitle: 'The fingerprint of the call as it was shown',
  ranTitle: 'The fingerprint of the edited arguments the tool ran with',
  awaitingDelivery: 'Awaiting delivery.',
  /** `{engine}`: the engine's name. */
  delivering: 'The decision is being sent to engine {engine} now.',
  notDelivered: 'Engine {engine} has not received this decision yet; the console keeps trying.',
  attempts: 'Attempts',
  lastError: 'Last error',
  nextAttempt: 'Next attempt',
  editedArgs: 'Edited arguments',
  dataSent: 'Data sent',
  dataSentLabel: 'Resume data sent',
  outcome: 'Outcome',

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
