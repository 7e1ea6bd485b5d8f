/** English words of the `app` section (see ../index.svelte.ts): the console's shell and the token screen. */
export const app = {
  /** The views, as the header's tabs name them. */
  tabs: { queue: 'Queue', audit: 'Audit', team: 'Statistics', grants: 'Grants', engines: 'Engines', settings: 'Settings' },
  /** A phone's call screen: back to the list of calls. */
  backToList: 'Calls',
  backToListLabel: 'Back to the list of calls',
  /** The tab list's label. */
  views: 'Views',
  /** The label of the count beside the queue tab. */
  pendingCalls: 'pending calls',
  shortcuts: 'Shortcuts',
  /** The event stream's state, in the header. */
  connection: {
    open: '● live',
    connecting: 'connecting…',
    retrying: (secs: number) => `reconnecting in ${secs} s`,
    closed: 'disconnected',
  },
  /** `{error}`: ": " and the reason, when one is known. */
  notifyWarning: 'Desktop notifications are not available{error}. New calls still appear here.',
  dismissNotifyWarning: 'Dismiss the notifications warning',
  dismissNotice: 'Dismiss this notice',

  tokenNeeded: 'This page needs the access token of a running console.',
  /** `{cmd}`: `approval-console serve`; `{url}`: what the address looks like. */
  tokenHow: 'Start the server with {cmd} and open the address it prints, which looks like {url}.',
  tokenLabel: 'Or paste the token (or that whole address) here',
  tokenOpen: 'Open console',
  tokenInvalid: 'That is neither a token nor a console URL with #token=….',

  /** Who the token stands for, in the header. `{name}`: the credential's name (or the OS user); `{role}`: one of `roles`. */
  whoami: 'Signed in as {name} ({role})',
  /** The local admin by its OS account: `{name}`. Never called "operator", which is a role. */
  whoamiYou: "Signed in as you ({name}, this computer's admin)",
  /** The desktop window, which does not learn the OS user's name. */
  whoamiLocal: 'Signed in as the local admin',
  /** A paired device (a phone on the remote listener), by its name: `{name}`. */
  whoamiDevice: 'Signed in as {name} (a paired device)',
  /** A role as the header and Settings → Tokens name it. */
  roles: { agent: 'agent', viewer: 'viewer', operator: 'operator', admin: 'admin' },
  /** Before the console knows who the token stands for. */
  checkingToken: 'Checking the token…',
  /** Asking who the token stands for failed (the error is shown below it). */
  sessionFailed: 'The console could not tell who this token stands for.',
  otherToken: 'Use a different token',

  /** The page a viewer's token gets: the team's figures only. */
  viewerTitle: 'Approval Console: team figures',
  /** `{name}`: the token's name. */
  viewerSignedIn: 'Signed in with the token named {name}, with the viewer role.',
  viewerCan: 'A viewer token reads the metrics and the team figures, nothing else: it sees no calls and decides nothing.',

  /** The page an agent's token gets instead of the console. */
  agentTitle: "This token is an agent's",
  /** `{name}`: the token's name. */
  agentSignedIn: 'It is the token named {name}, with the agent role.',
  agentCan:
    'An agent token can start runs of the agents and list the runs it started, but it cannot use the console: it sees no calls and decides nothing, so that an agent never approves its own calls.',
  /** `{cmd}`: the command that makes an operator token. */
  agentHow: "To review calls, open the console with an operator token. The console's admin makes one with {cmd}, which prints the token alone on its last line.",
};
