/** English words of the `app` section (see ../index.svelte.ts): the console's shell and the token screen. */
export const app = {
  /** The views, as the header's tabs name them. */
  tabs: { queue: 'Queue', audit: 'Audit', grants: 'Grants', engines: 'Engines', settings: 'Settings' },
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
};
