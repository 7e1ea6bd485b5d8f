/**
 * English words of the `team` section (see ../index.svelte.ts): the Statistics view (its tab), how quickly calls are
 * decided and how many wait. Tool and operator names come from the wire and are never translated.
 */
export const team = {
  title: 'Statistics',
  intro: 'How quickly calls are decided, by tool and by operator, and how many were waiting, hour by hour.',
  /** The label of the period buttons. */
  period: 'Period',
  periods: (days: number) => (days === 1 ? 'Last 24 hours' : `Last ${days.toLocaleString('en')} days`),
  /** `{since}`, `{until}`: times. */
  range: 'From {since} to {until}',
  refresh: 'Refresh',
  empty: 'No decisions in this period.',
  noPending: 'No call was waiting at the end of any hour of this period.',
  totals: 'Totals',
  decided: 'Decided',
  declined: 'Declined',
  expired: 'Expired',
  /** After a count: its share of all decisions (`16.7%`). */
  share: (share: string) => `${share} of decided`,
  byTool: 'Time to decision per tool',
  byOperator: 'Time to decision per operator',
  pendingOverTime: 'Pending over time',
  timesHint: 'From the call pausing to its decision: p50 is the median, p90 the time within which 9 of 10 decisions came.',
  p50: 'p50 (median)',
  p90: 'p90',
  /** The tooltip of the pending line. */
  pendingAt: (n: number) => `${n.toLocaleString('en')} pending`,
  /** The canvas's name for screen readers; `{title}` is the chart's heading. */
  chartLabel: (title: string) => `${title}: chart. The same numbers are in the table that follows.`,
  showTable: 'Show the numbers as a table',
  columns: {
    tool: 'Tool',
    operator: 'Operator',
    decided: 'Decided',
    p50: 'p50',
    p90: 'p90',
    declined: 'Declined',
    expired: 'Expired',
    hour: 'Hour ending',
    pending: 'Pending',
  },
};
