/**
 * A message with places for things that are not words (a `<code>`, a `<time>`, a count in its own
 * element, a name from the wire): `'Start the server with {cmd} and open the address it prints.'`.
 * Each language puts the places where its sentence needs them; the component renders the pieces in
 * order and fills each `{name}` itself.
 */
export type Segment = { text: string; slot?: undefined } | { slot: string; text?: undefined };

const PLACE = /\{(\w+)\}/g;

export function slots(template: string): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const m of template.matchAll(PLACE)) {
    if (m.index > at) out.push({ text: template.slice(at, m.index) });
    out.push({ slot: m[1] });
    at = m.index + m[0].length;
  }
  if (at < template.length) out.push({ text: template.slice(at) });
  return out;
}

/** The word for a value from the wire (a state, a verdict) in `words`; a value without one is shown as it came. */
export function wordFor(words: Readonly<Record<string, string>>, value: string): string {
  return Object.hasOwn(words, value) ? words[value] : value;
}
