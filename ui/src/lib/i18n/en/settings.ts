/** English words of the `settings` section (see ../index.svelte.ts): notifications, time limits, desktop, appearance. */
export const settings = {
  title: 'Settings',
  notifications: 'Notifications and high-risk tools',
  notifyIntro:
    'A desktop notification for each new call waiting for a decision, with Approve, Decline and Open. Changes apply to the next new call.',
  notifyOffNote: 'They are turned off in the settings below.',
  notifyEnabled: 'Show a desktop notification for new calls',
  /** Next to that box while this process shows no notifications (it is then shown unticked). `{cmd}`: `serve --notify`. */
  notifyEnabledOff: 'Not in effect here: this process shows no notifications. It applies to {cmd} and to the desktop app, and is kept as it is.',
  /** Next to that box while notifications fail here. */
  notifyEnabledBroken: 'On, but notifications do not work here: see the status above.',
  quietHours: 'Quiet hours',
  quiet: 'No notifications between these times',
  from: 'From',
  until: 'Until',
  quietHint: 'Local time of this computer; may span midnight (e.g. from 22:00 until 07:00). Calls still queue meanwhile; they are only not notified.',
  engines: 'Engines',
  /** The placeholder of an empty filter. */
  all: 'all',
  /** `{local}`: the word `local` as code. */
  enginesHint:
    "Notify only about calls of these engines, comma-separated: {local} or a remote engine's name. Empty: all engines. This filters notifications only: every call is still queued and listed here.",
  agents: 'Agents',
  agentsHint: 'Notify only about calls of these agent ids, comma-separated. Empty: all agents. This filters notifications only: every call is still queued and listed here.',
  highRisk: 'High-risk tools',
  highRiskHint:
    'One tool name per line. Every call of these tools needs an operator: Approve asks to confirm first, a notification offers only Decline and Open, and no "always allow" grant applies to them.',
  saving: 'Saving…',
  /** What the one Save button stores. */
  saveScope:
    'Notifications, high-risk tools, approvals needed, time limits, channels and the remote listener are kept by this console, for every window: change them, then save them all with Save settings below. Tokens, devices and channel secrets are made or ended at once by their own buttons; Desktop and Appearance are this browser\'s own and apply as you choose them.',
  /** In place of `saveScope` for a token that may not change them (an operator). */
  adminOnly:
    'Notifications, high-risk tools, approvals needed and time limits are kept by this console, for every window. Only an admin changes them: with this token you can read them here, not save them.',
  saveAll: 'Save settings',
  unsaved: 'Unsaved changes',
  /** Where, by section name. */
  unsavedIn: (sections: string[]) => `in ${[...sections].join(', ')}`,
  /** The sections' list (nav). */
  sectionsNav: 'Settings sections',
  nav: {
    notifications: 'Notifications',
    approvals: 'Approvals needed',
    timeLimits: 'Time limits',
    channels: 'Channels and escalation',
    remoteListener: 'Remote listener',
    policy: 'Policy',
    tokens: 'Tokens',
    devices: 'Devices',
    desktop: 'Desktop',
    appearance: 'Appearance',
  },
  /** `parts`: what was saved (`notifySaved`, `limitsSaved…`). */
  savedAll: (parts: string[]) => ['Saved.', ...parts].join(' '),
  notSaved: 'Not everything was saved: see the errors above.',
  notifySaved: 'Notifications and high-risk tools apply to the next new call.',
  /** The confirm step of a save that widens what runs without an operator (the server's lines follow). */
  wideningTitle: 'These changes let more through without an operator',
  wideningIntro: 'Nothing of them was saved yet. Save them anyway only if that is meant: each is recorded in the audit log as a widening.',
  wideningSave: 'Save anyway',
  wideningCancel: 'Keep editing',
  desktop: 'Desktop',
  autostart: 'Start Approval Console when I log in',
  autostartHint: 'Applies at once, nothing to save.',

  appearance: 'Appearance',
  theme: 'Theme',
  themes: { system: 'System', light: 'Light', dark: 'Dark' },
  themeNow: (dark: boolean) => `(follows this computer: ${dark ? 'dark' : 'light'} now)`,
  language: 'Language',
  languageSystem: 'System',
  /** `name`: the language the system resolves to, by its own name. */
  languageNow: (name: string) => `(follows this computer: ${name} now)`,
  /** Each language by its own name: the same in every table. */
  languageNames: { en: 'English', ja: '日本語' },
  appearanceHint: 'For this browser (or the desktop window) only; applies at once, nothing to save.',
  /** In place of the console's own settings on a paired device, which neither reads nor changes them. */
  deviceOnly: 'The console’s own settings (notifications, approvals needed, time limits, channels, tokens, devices) are read and changed on the console’s computer, not from a paired device. Here: how this phone shows the console.',

  quorums: 'Approvals needed (two-person rule)',
  quorumsIntro:
    'Each call of these tools runs only after this many approvals by different operators, all of the same arguments. One decline ends it, its time limit covers all the approvals, whoever started the run cannot approve it, and no "always allow" grant applies.',
  noQuorums: 'No tool needs more than one approval.',
  quorumTool: 'Tool',
  quorumToolPlaceholder: 'tool name, exactly',
  quorumApprovals: 'Approvals by different operators',
  removeQuorum: (tool: string) => `Remove the approvals needed for ${tool}`,
  policy: {
    heading: 'Policy',
    inForce: 'Version in force (recorded with every decision):',
    howToChange: 'Change it as one file (high-risk tools, risk rules, quorums, time limits):',
    file: 'The policy as its file',
    history: 'Policy files applied',
    noHistory: 'No policy file applied yet: the rules were set here or with the CLI.',
  },
  criticalQuorum: 'Approvals every call rated critical needs (whatever its tool)',
  criticalQuorumHint: 'Calls rated critical by their arguments (rm -rf /, a download piped into a shell) need this many different operators; empty or 1: what their tool needs.',
  addQuorum: 'Add a tool',
  quorumsSavedNone: 'Every tool needs one approval.',
  /** `rules`: the `quorumRule`s joined by `limitSeparator`. */
  quorumsSaved: (rules: string) => `Approvals needed: ${rules}.`,
  quorumRule: (tool: string, approvals: number) => `${tool} ${approvals}`,

  timeLimits: 'Time limits',
  timeLimitsIntro:
    "A call nobody decides within its tool's time limit is declined as expired, and the agent is told so. Snooze a call from its details to give it longer.",
  noTimeLimits: 'No time limits: calls wait until someone decides.',
  tool: 'Tool',
  toolPlaceholder: 'tool name, or * for every other tool',
  expiresAfter: 'Expires after',
  unit: 'Unit',
  units: { seconds: 'seconds', minutes: 'minutes', hours: 'hours', days: 'days' },
  removeLimit: (tool: string) => `Remove the time limit of ${tool}`,
  thisRule: 'this rule',
  addLimit: 'Add a time limit',
  warnBefore: 'Warn before the deadline',
  amount: 'Amount',
  warnHint: "Inside this window a call's countdown is shown as a warning.",
  limitsSavedNone: 'No time limits.',
  /** `rules`: the `limitRule`s joined by `limitSeparator`. */
  limitsSaved: (rules: string) => `Time limits: ${rules}.`,
  limitRule: (tool: string, after: string) => `${tool} after ${after}`,
  limitSeparator: ', ',

  notifyStatus: 'Desktop notifications:',
  /** `{cmd}`: `serve --notify` as code. */
  statusOff: 'off in this process (start with {cmd} or use the desktop app)',
  /** `{error}`: the reason; `{since}`: `statusSince` or nothing; `{missed}`: the count. */
  statusUnavailable: (missed: number) => `on, but not available: {error}{since}; {missed} ${missed === 1 ? 'call' : 'calls'} not told`,
  statusSince: ' (since {time})',
  noReason: 'no reason given',
  /** `{shown}`: the count. */
  statusWorking: 'on, working ({shown} shown)',
  statusUntried: 'on, none shown yet',
};
