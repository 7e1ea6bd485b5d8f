/** English words of the `risk` section (see ../index.svelte.ts): a call's risk level, and the deliberate approval of a risky call. */
export const risk = {
  /** The risk chip: one word per level, the same everywhere (header, rows, detail). */
  levels: { low: 'Low', medium: 'Medium', high: 'High', critical: 'Critical' },
  /** A call the console sent no rating for (an older server): not the same as low. */
  unrated: 'Not rated',
  /** The chip's title: `level` (a word above), `reasons` (the console's reasons, one a line, or none). */
  chipTitle: (level: string, reasons: string) => (reasons ? `Risk: ${level}\n${reasons}` : `Risk: ${level}`),
  unratedTitle: 'This console sent no risk rating for the call: read its arguments yourself.',
  /** Approve, for a high or critical call, or one with hidden or look-alike characters: it opens the deliberate step. */
  approveRisky: 'Approve…',
  /** The deliberate step. `{tool}`: the tool's name; `{level}`: the risk chip. */
  stepHeading: 'Approve {tool}? {level}',
  whyHeading: 'Why it needs care:',
  /** Said when the call is flagged only for its characters (the console rated it lower). */
  charactersOnly: 'Its arguments hold hidden or look-alike characters: what you read may not be what runs.',
  /** `{tool}`: the tool's name. */
  typeLabel: 'Type {tool} to approve it',
  typeMismatch: 'Not the tool name yet: type it exactly, or hold the button.',
  typedConfirm: 'Approve',
  hold: 'Press and hold to approve',
  holding: 'Keep holding…',
  /** The hint under the step: Enter alone never approves here. */
  hint: 'A quick Enter or click does not approve this call. Hold the button (or Enter or Space on it) for a second, or type the tool name. Esc cancels.',
  /** The same on a touch screen (no keys named). */
  hintTouch: 'A quick tap does not approve this call. Press and hold the button for a second, or type the tool name.',
  /** A decision key pressed just after the call appeared (it may have been meant for the call before). */
  settling: 'This call just appeared: that key was ignored. Press it again to go on.',
};
