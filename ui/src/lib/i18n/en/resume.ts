/**
 * English words of the `resume` section (see ../index.svelte.ts): the answer form of a suspended
 * call (`resume-form.ts`), and the checks of its data against the resume schema (`json-schema.ts`).
 */

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

export const resume = {
  // The form.
  required: 'required',
  requiredHidden: ' (required)',
  rawLabel: 'Resume data (JSON)',
  moreErrors: (n: number) => `… and ${n.toLocaleString('en')} more.`,
  send: 'Send answer',
  editAsJson: 'Edit as JSON',
  /** `paths`: JSON pointers. */
  leftOut: (paths: string) => `Left out what could not be read: ${paths}.`,
  /** `error`: why the JSON could not be read. */
  fixToGoBack: (error: string) => `${error} Fix it to go back to the form.`,
  cannotShowAll: 'The form cannot show all of this data, so it stays as JSON.',
  /** Between a field's hints ("3 to 8 characters, matching ^[A-Z]+$"). */
  listSeparator: ', ',
  lookalikeOptions: (n: number) => `⚠ look-alike characters in ${n === 1 ? 'an option' : 'options'}:`,
  /** Beside a "null" box, for screen readers. `{label}`: the field's label. */
  noValueFor: '(no value for {label})',
  item: (i: number) => `Item ${i}`,
  removeItemHidden: (i: number) => ` item ${i}`,
  noItems: 'No items.',
  addItem: 'Add item',
  /** `{label}`: the list's label. */
  addItemToHidden: ' to {label}',
  kind: 'Kind',
  choose: '— choose —',
  noneOption: '— none —',
  none: 'none',
  fixed: '(fixed)',

  // Why a value is refused (the server says it in its own words).
  noValueAllowed: 'No value is allowed here.',
  /** `what`: `types`, joined with `or`. */
  mustBeType: (what: string) => `Must be ${what}.`,
  or: (a: string, b: string) => `${a} or ${b}`,
  types: {
    string: 'text',
    number: 'a number',
    integer: 'a whole number',
    boolean: 'true or false',
    null: 'null',
    array: 'a list',
    object: 'an object',
  },
  otherType: 'of another type',
  /** `values`: JSON values. */
  mustBeOneOf: (values: string) => `Must be one of ${values}.`,
  /** `value`: a JSON value. */
  mustEqual: (value: string) => `Must be ${value}.`,
  minItems: (n: number) => `Needs at least ${plural(n, 'item')}.`,
  maxItems: (n: number) => `Takes at most ${plural(n, 'item')}.`,
  minFields: (n: number) => `Needs at least ${plural(n, 'field')}.`,
  maxFields: (n: number) => `Takes at most ${plural(n, 'field')}.`,
  minLength: (n: number) => `Needs at least ${plural(n, 'character')}.`,
  maxLength: (n: number) => `Takes at most ${plural(n, 'character')}.`,
  uniqueItems: 'The items must all be different.',
  containsNone: 'Needs an item that matches.',
  minContains: (n: number) => `Needs at least ${plural(n, 'item')} that match.`,
  maxContains: (n: number) => `Takes at most ${plural(n, 'item')} that match.`,
  requiredField: 'This field is required.',
  /** `name`: the field's name, quoted. */
  requiredWith: (name: string) => `This field is required when ${name} is given.`,
  /** `name`: the field's name, quoted. */
  unknownField: (name: string) => `Unknown field ${name}.`,
  /** `name`: the field's name, quoted. */
  badFieldName: (name: string) => `The field name ${name} is not allowed.`,
  matchesNone: 'Matches none of the allowed shapes.',
  matchesMany: 'Matches more than one of the allowed shapes; it must match exactly one.',
  notAllowed: 'This value is not allowed.',
  pattern: (pattern: string) => `Must match the pattern ${pattern}.`,
  moreThan: (n: number) => `Must be more than ${n}.`,
  atLeast: (n: number) => `Must be at least ${n}.`,
  lessThan: (n: number) => `Must be less than ${n}.`,
  atMost: (n: number) => `Must be at most ${n}.`,
  multipleOf: (n: number) => `Must be a multiple of ${n}.`,
  /** A check of the schema with no words of its own here. */
  failsCheck: (keyword: string) => `Does not pass the schema's "${keyword}" check.`,
  formats: {
    date: 'Must be a date: YYYY-MM-DD.',
    'date-time': 'Must be a date and time with a zone, like 2025-01-31T09:30:00Z.',
    time: 'Must be a time with a zone, like 09:30:00Z.',
    email: 'Must be an email address.',
    uri: 'Must be an absolute URI, like https://example.com/.',
    ipv4: 'Must be an IPv4 address, like 192.0.2.1.',
    hostname: 'Must be a host name, like example.com.',
  },
  enterNumber: 'Enter a number.',
  chooseValue: 'Choose a value.',
  chooseOne: 'Choose one.',
  enterJson: 'Enter the resume data as JSON.',
  /** `problem`: the browser's words. */
  notValidJson: (problem: string) => `Not valid JSON: ${problem}`,
  /** `why`: one of the `cannotShow…` below. */
  cannotShowValue: (why: string) => `The form cannot show this value: ${why}.`,
  notText: 'it is not text',
  notNumber: 'it is not a number',
  notBoolean: 'it is not true or false',
  notOffered: 'it is not one of the values offered',
  notConst: (value: string) => `it is not ${value}`,
  notObject: 'it is not an object',
  notList: 'it is not a list',
  noShape: 'it matches none of the shapes offered',
  noFieldForThis: 'The form has no field for this.',

  // What a field asks for, in words (its hints).
  lengthRange: (min: number, max: number) => `${min} to ${max} characters`,
  minChars: (n: number) => `at least ${plural(n, 'character')}`,
  maxChars: (n: number) => `at most ${plural(n, 'character')}`,
  matching: (pattern: string) => `matching ${pattern}`,
  format: (format: string) => `format: ${format}`,
  formatHints: {
    date: 'a date (YYYY-MM-DD)',
    'date-time': 'a date and time with a zone (2025-01-31T09:30:00Z)',
    time: 'a time with a zone (09:30:00Z)',
    email: 'an email address',
    uri: 'an absolute URI',
    iri: 'an absolute IRI',
  },
  wholeNumber: 'a whole number',
  atLeastHint: (n: number) => `at least ${n}`,
  moreThanHint: (n: number) => `more than ${n}`,
  atMostHint: (n: number) => `at most ${n}`,
  lessThanHint: (n: number) => `less than ${n}`,
  /** `low`, `high`: two of the hints above. */
  between: (low: string, high: string) => `${low} and ${high}`,
  multipleOfHint: (n: number) => `a multiple of ${n}`,
  itemsRange: (min: number, max: number) => `${min} to ${plural(max, 'item')}`,
  minItemsHint: (n: number) => `at least ${plural(n, 'item')}`,
  maxItemsHint: (n: number) => `at most ${plural(n, 'item')}`,
  allDifferent: 'all different',

  // The names of a choice's shapes, when the schema gives none.
  shapeKinds: { text: 'Text', number: 'Number', boolean: 'Yes / no', object: 'Object', array: 'List', choice: 'Choice' },
  shape: (i: number) => `Shape ${i}`,
  wholeNumberShape: 'Whole number',

  // Why the raw JSON editor is shown instead of a form. `where`: one of the `where…` below.
  noSchema: 'No resume schema was given.',
  notObjectSchema: 'The resume schema is not an object with properties.',
  noProperties: 'The resume schema has no properties.',
  tooManyFields: (n: number) => `The resume schema has more than ${n} fields.`,
  tooDeep: (n: number) => `The resume schema nests more than ${n} levels deep.`,
  acceptsAnything: (where: string) => `${cap(where)} accepts any value.`,
  usesKeyword: (where: string, keyword: string) => `${cap(where)} uses "${keyword}", which the form cannot show.`,
  allowsNothing: (where: string) => `${cap(where)} allows no value at all.`,
  tooManyValues: (where: string, n: number) => `${cap(where)} has more than ${n} values to choose from.`,
  bothCombinators: (where: string) => `${cap(where)} uses both "anyOf" and "oneOf".`,
  emptyCombinator: (where: string, keyword: string) => `${cap(where)} has an empty "${keyword}".`,
  combinatorWith: (where: string, keyword: string, other: string) => `${cap(where)} uses "${keyword}" together with "${other}".`,
  typeNotName: (where: string) => `${cap(where)} has a "type" that is not a type name.`,
  objectWithoutProperties: (where: string) => `${cap(where)} is an object without listed properties.`,
  requiredNotDescribed: (name: string) => `The required field "${name}" is not described by the schema.`,
  fixedPositions: (where: string) => `${cap(where)} is a list of fixed positions.`,
  listOfAnything: (where: string) => `${cap(where)} is a list of any values.`,
  typeNotShown: (where: string, type: string) => `${cap(where)} accepts values of type "${type}", which the form cannot show.`,
  anythingNotShown: (where: string) => `${cap(where)} accepts any value, which the form cannot show.`,
  whereRoot: 'the resume data',
  whereField: (name: string) => `the field "${name}"`,
  whereItems: (where: string) => `the items of ${where}`,
  whereShape: (where: string, i: number) => `${where}, shape ${i}`,
};
