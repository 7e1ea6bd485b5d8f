/**
 * English words of the `args` section (see ../index.svelte.ts): a call's arguments and other JSON as
 * shown (tree, raw text, hidden and look-alike characters), the fingerprint check, the argument editor.
 */
export const args = {
  // The JSON tree.
  items: (n: number) => `[${n.toLocaleString('en')} ${n === 1 ? 'item' : 'items'}]`,
  keys: (n: number) => `{${n.toLocaleString('en')} ${n === 1 ? 'key' : 'keys'}}`,
  showMore: (more: number, shown: number, total: number) =>
    `show ${more.toLocaleString('en')} more (showing ${shown.toLocaleString('en')} of ${total.toLocaleString('en')})`,
  inexactTitle: "Beyond 2^53: shown rounded here; the tool gets the engine's exact digits",
  /** What the folded part of a long string hides. */
  foldedMarks: (hidden: number, lookalike: number) => {
    const kinds = [hidden ? `${hidden.toLocaleString('en')} hidden` : '', lookalike ? `${lookalike.toLocaleString('en')} look-alike` : ''];
    return `+${kinds.filter(Boolean).join(', ')} ${hidden + lookalike === 1 ? 'character' : 'characters'} in the folded part`;
  },
  fold: 'fold',
  showAll: (n: number) => `show all ${n.toLocaleString('en')} characters`,

  // The raw JSON text.
  prettyForm: "Pretty-printed, keys in the engine's order",
  canonicalForm: 'Canonical JSON (RFC 8785), as the fingerprint hashes it',
  showCanonical: 'Show canonical',
  prettyPrint: 'Pretty-print',
  noCanonical: (problem: string) => `No canonical form (${problem}); showing it pretty-printed.`,
  truncated: (kb: number) => `Truncated: showing the first ${kb.toLocaleString('en')} KB. Use the tree view to browse the rest.`,

  // Hidden and look-alike characters.
  hiddenChars: (n: number) => `${n.toLocaleString('en')} hidden character${n === 1 ? '' : 's'}`,
  lookalikeChars: (n: number) => `${n.toLocaleString('en')} look-alike character${n === 1 ? '' : 's'}`,
  /** Between the counts of a headline. */
  listSeparator: ', ',
  /** `{counts}`: the counts of hidden and look-alike characters. */
  foundInArguments: '{counts} in the arguments',
  foundInPayload: '{counts} in the payload',
  hidden: 'hidden',
  lookalike: 'look-alike',
  /** `{title}`: the character; `{times}`: how often, when more than once; `{pointer}`: where first (a JSON pointer). */
  findingAt: '{title}{times}, first at {pointer}',
  findingInKey: '{title}{times}, first in the key {pointer}',
  times: (n: number) => ` (×${n.toLocaleString('en')})`,
  /** The JSON pointer of the whole value. */
  topLevel: '(top level)',
  moreCharacters: '… and other characters.',
  /** A hidden character's title: `U+202E RIGHT-TO-LEFT OVERRIDE (invisible)`. `name`: its Unicode name. */
  hiddenTitle: (code: string, name: string) => `${code} ${name} (invisible)`,
  /** A look-alike's title: `U+0430 CYRILLIC SMALL LETTER A looks like 'a'`. */
  lookalikeTitle: (code: string, name: string, like: string) => `${code} ${name} looks like '${like}'`,
  lookalikeSpaceTitle: (code: string, name: string) => `${code} ${name} looks like a space`,
  /** Names of hidden characters without a Unicode name of their own here. */
  controlCharacter: 'control character',
  tagCharacter: 'TAG character',
  formatCharacter: 'invisible format character',
  /** An option's look-alikes, named after its text (an option holds no markup). */
  lookalikeMark: (codes: string) => `⚠ look-alike ${codes}`,

  // The fingerprint recomputed here.
  checking: 'checking…',
  verified: '✓ verified',
  verifiedTitle: 'Recomputed in this window from the canonical JSON of the tool name and the arguments shown',
  mismatchTitle: '⚠ Fingerprint does not match the arguments shown.',
  /** `{computed}`: the fingerprint recomputed here. */
  mismatchText: 'Do not approve: the approval would be bound to other arguments than these. Recomputed here: {computed}',
  /** `{reason}`: why. */
  cannotVerify: 'Cannot verify in the browser: {reason}',
  notSha256: 'the fingerprint is not a SHA-256 one this console knows how to compute',
  notPlainJson: (problem: string) => `the arguments are not plain JSON (${problem})`,
  noWebCrypto: 'this window has no Web Crypto',
  webCryptoMissing: 'Web Crypto is not available here',
  /** `where`: JSON pointers. */
  inexactReason: (n: number, where: string) =>
    `${n === 1 ? '1 whole number is' : `${n.toLocaleString('en')} whole numbers are`} beyond 2^53 (at ${where}): the browser rounds such numbers, so the tool may receive other digits than shown`,
  // What JSON cannot hold (`canonical.ts`).
  cycle: 'the value contains a cycle',
  notJsonNumber: (value: string) => `${value} is not a JSON number`,
  notJsonValue: (type: string) => `a ${type} is not a JSON value`,

  // Edit the arguments, then approve.
  editTitle: 'Edit arguments, then approve',
  editLabel: 'Arguments as JSON',
  validJson: 'Valid JSON.',
  invalidJson: 'Not valid JSON:',
  invalidJsonAt: (line: number, column: number) => `Not valid JSON at line ${line}, column ${column}:`,
  newFingerprint: 'New fingerprint',
  computing: 'computing…',
  /** `{error}`: why. */
  cannotCompute: 'Cannot compute here: {error}',
  boundTo: 'Bound to',
  /** `{fingerprint}`: the call's fingerprint, shortened. */
  boundToText: 'the call as shown (fingerprint {fingerprint}); the server checks it has not changed',
  changes: 'Changes',
  noChanges: "None: these are the call's arguments. Edit them, or use Approve.",
  ops: { added: 'added', removed: 'removed', changed: 'changed' },
  wholeValue: '(the whole value)',
  moreChanges: (n: number) => `and ${n.toLocaleString('en')} more`,
  /** `{pointers}`: where (JSON pointers). */
  inexactEdit: 'Whole numbers beyond 2^53 (at {pointers}) are rounded by the browser: the tool gets the rounded value.',
  approveEdited: 'Approve edited',
  // The confirm step: the arguments as shown against the arguments as edited.
  diffTitle: 'Your edit, as shown → as edited',
  /** How many lines the edit adds and removes, for a screen reader (the page shows `+N −M`). */
  diffCounts: (added: number, removed: number) =>
    `${added.toLocaleString('en')} ${added === 1 ? 'line' : 'lines'} added, ${removed.toLocaleString('en')} ${removed === 1 ? 'line' : 'lines'} removed`,
  diffSame: 'The edited arguments are the same as shown.',
  diffTooLarge: (max: number) => `Too many lines changed (more than ${max.toLocaleString('en')}) to show the edit line by line; the list of changes above says where.`,
};
