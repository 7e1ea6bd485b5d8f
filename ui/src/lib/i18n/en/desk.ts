/**
 * English words of the `desk` section (see ../index.svelte.ts): what a queue row says besides the
 * call (its two-person progress, how long it waited), the detail's three-line summary, its
 * channels line and its decision bar (issue 45).
 */
export const desk = {
  /** A row's two-person progress: approvals so far of how many, and who gave the first (`1/2 · alice`). */
  quorumBadge: (have: number, need: number, first: string | null) => (first ? `${have}/${need} · ${first}` : `${have}/${need}`),
  /** Its title: who approved so far (`names`: audit names, `alice (web)`). */
  quorumTitle: (have: number, need: number, names: string) =>
    have === 0 ? `Needs ${need} approvals by different people; none yet` : `${have} of ${need} approvals so far: ${names}`,
  /** A submitted call its agent took back (state `gone`). */
  withdrawn: 'withdrawn',
  /** The relative time's title: `{time}` the date and time it paused. */
  pausedAt: (time: string) => `Paused at ${time}`,
  /** The agent's title on a row: the credential that asked for the call. */
  requestedBy: (agent: string, by: string) => `${agent}, via ${by}`,

  /** The detail's summary, three lines. */
  summaryLabel: 'In short',
  what: 'What',
  where: 'Where',
  why: 'Why',
  /** The parts of the "where" line. */
  whereParts: { cwd: 'in', host: 'host', database: 'database' },
  /** After the agent's own words: they are not checked by anyone. */
  agentWords: "the agent's words, unchecked",

  /** The channels line, folded: how many messages went and how they fared. */
  channelsLine: (sent: number, waiting: number, failed: number, skipped: number) =>
    [
      `Sent to channels: ${sent} sent`,
      waiting ? `${waiting} waiting` : '',
      failed ? `${failed} failed` : '',
      skipped ? `${skipped} not sent` : '',
    ]
      .filter((s) => s !== '')
      .join(', '),

  /** A line break at the end of a string value (shown so the closing quote stays on its line). */
  lineBreak: 'line break',
};
