/**
 * English words of the `reach` section (see ../index.svelte.ts): reaching operators beyond this
 * machine (issue 28) — Settings → Channels and escalation, a call's claim ("I'm on it") and its
 * channels' messages in the detail, and the time to decision in Statistics. Channel, person and
 * rule names come from the settings and are never translated.
 */
export const reach = {
  title: 'Channels and escalation',
  intro:
    "Reach operators away from this machine. Each channel is one person's (or a team's): a signed webhook, a Slack or Mattermost webhook, email or a Matrix room. Rules say whom to tell, and after how long, while a call waits and nobody has claimed it; without a matching rule every enabled channel is told at once. A message decides nothing: its link opens the call.",
  /** `{cmd}`: the command that sets a channel's secret on the console's machine. */
  secretsNote:
    "A channel's secret is never in these settings, nor where it is kept: it is the channel's own, and only the local admin sets it — below (in the desktop app, or on this page opened with serve's session token) or with {cmd} on the console's machine. Set it before you save a channel that needs one.",

  channels: 'Channels',
  noChannels: 'No channels: calls are shown only here and as desktop notifications.',
  addChannel: 'Add a channel',
  removeChannel: (name: string) => `Remove the channel ${name}`,
  thisChannel: 'this channel',
  channelName: 'Name',
  kind: 'Kind',
  kinds: { webhook: 'Webhook (signed)', slack: 'Slack or Mattermost webhook', email: 'Email', matrix: 'Matrix room' },
  person: 'Person',
  personHint: 'Whose channel it is: the name rules and on-call shifts use.',
  target: { webhook: 'URL', slack: 'Target', email: 'Address', matrix: 'Room id' },
  server: { webhook: 'Server', slack: 'Server', email: 'SMTP server (host:port)', matrix: 'Homeserver URL' },
  from: 'From address',
  username: 'SMTP user (when not the from address)',
  tls: 'Transport security',
  tlsModes: { starttls: 'STARTTLS (required)', tls: 'TLS from the start (port 465)', none: 'None (a relay on this machine only)' },
  caFile: 'Certificate to trust too (PEM file)',
  secret: 'Secret',
  /** Where a set secret is kept. */
  secretKept: { keyring: 'Set (kept in the OS keyring)', file: 'Set (kept in an owner-only file)' },
  noSecret: 'No secret set',
  secretValue: 'New secret',
  setSecret: 'Set secret',
  removeSecret: 'Remove secret',
  secretSet: (name: string) => `The secret of ${name} is set.`,
  secretRemoved: (name: string) => `The secret of ${name} is removed.`,
  secretNeedsName: 'Name the channel first.',
  secretLocalOnly: "Only the local admin sets or removes it: the desktop app, this page opened with serve's session token, or the command line.",
  /** What the secret of each kind holds. */
  secretHolds: {
    webhook: 'The key its messages are signed with (HMAC-SHA256).',
    slack: "The incoming webhook's URL: the URL is the secret.",
    email: 'The SMTP password, if the server asks for one.',
    matrix: 'The access token of the account that posts.',
  },
  quiet: 'Hold its messages during quiet hours (UTC)',
  quietFrom: 'From',
  quietTo: 'Until',
  includeArgs: "Include the call's whole arguments (otherwise only what it does)",
  enabled: 'Enabled',

  rules: 'Escalation rules',
  rulesIntro:
    'The first rule that matches a call applies: every filter given must match (none given: every call). Each step tells its people after its delay unless the call was decided or claimed by then; nobody is told twice.',
  noRules: 'No rules: every enabled channel is told at once.',
  addRule: 'Add a rule',
  removeRule: (name: string) => `Remove the rule ${name}`,
  thisRule: 'this rule',
  ruleName: 'Name',
  tools: 'Tools',
  agents: 'Agents',
  listHint: 'Comma-separated. Empty: any.',
  sources: 'From',
  sourcesHint: 'None ticked: from anywhere.',
  minRisk: 'At least this risk',
  anyRisk: 'Any risk',
  riskLevels: { low: 'Low', medium: 'Medium', high: 'High', critical: 'Critical' },
  steps: 'Steps',
  step: (n: number) => `Step ${n}`,
  after: 'After',
  unit: 'Unit',
  notify: 'Tell',
  /** `{onCall}`, `{everyone}`: the two names a step may use besides persons. */
  notifyHint: 'Comma-separated: persons, {onCall} (whoever is on call when the step is due) or {everyone}. 0: at once.',
  knownPersons: (names: string) => `Persons with a channel: ${names}.`,
  addStep: 'Add a step',
  removeStep: (n: number) => `Remove step ${n}`,

  onCall: 'On call',
  onCallIntro: "Who an on-call step tells when it is due. Times are UTC; a shift that starts after it ends runs past midnight.",
  noShifts: 'No shifts: on-call steps tell nobody.',
  addShift: 'Add a shift',
  removeShift: (person: string) => `Remove the shift of ${person}`,
  thisShift: 'this shift',
  days: 'Days',
  daysHint: 'None ticked: every day.',
  /** Monday first, as the server numbers them (0–6). */
  weekdays: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
  weekdayNames: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  shiftFrom: 'From',
  shiftTo: 'Until',

  /** Above the server's warnings after a save: stored, yet something may not work as saved. */
  savedWarnings: 'Saved — but note:',
  /** What the settings' one Save stored of them, in the view's "Saved." line and beside them. */
  saved: (channels: number, rules: number, shifts: number) =>
    `Channels and escalation: ${channels === 1 ? '1 channel' : `${channels} channels`}, ${rules === 1 ? '1 rule' : `${rules} rules`}, ${shifts === 1 ? '1 on-call shift' : `${shifts} on-call shifts`}.`,

  /** "Send a test message" on a stored channel. */
  testSend: 'Send a test message',
  testSending: 'Sending…',
  testSaveFirst: 'Save the settings to test this channel as shown.',
  testSent: (name: string) => `Test message sent on ${name}.`,
  /** The channel's answer follows. */
  testFailed: (name: string) => `The test message on ${name} was not sent:`,

  /** The detail of a call. */
  claim: "Claim (I'm on it)",
  claiming: 'Claiming…',
  claimHint: 'Shows everyone you are on it, and stops its escalation.',
  /** `{who}`: a person; `{time}`: when. */
  claimedBy: 'Claimed by {who} at {time}',
  messages: 'Sent to channels',
  channel: 'Channel',
  state: 'State',
  when: 'Sent, or why not',
  states: { pending: 'waiting', sent: 'sent', skipped: 'not sent', failed: 'failed' },
  dueAt: (time: string) => `due ${time}`,
  attempts: (n: number) => (n === 1 ? '1 attempt' : `${n} attempts`),
  loadFailed: 'Who was told could not be read:',

  /** Statistics. */
  statsTitle: 'Time to decision',
  statsIntro:
    "Calls that went to channels: from a channel's message to the decision (by channel), from the call pausing to its decision (by the person who decided, by rule, and day by day, UTC).",
  statsEmpty: 'No call that went to a channel was decided in this period.',
  byChannel: 'By channel',
  byPerson: 'By person',
  byRule: 'By rule',
  byDay: 'By day',
  columns: { channel: 'Channel', person: 'Person', rule: 'Rule', day: 'Day', calls: 'Calls', p50: 'p50', p90: 'p90' },
};
