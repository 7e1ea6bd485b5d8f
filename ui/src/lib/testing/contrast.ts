/** WCAG 2 contrast, and reading custom properties out of a stylesheet's text, for the palette test. */

/** `#rgb` or `#rrggbb` → [r, g, b] in 0–255; throws on anything else, so a palette entry the test cannot read fails it. */
export function parseHex(color: string): [number, number, number] {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) throw new Error(`not a #hex colour: ${color}`);
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

/** Relative luminance (WCAG 2.x). */
export function luminance(color: string): number {
  const [r, g, b] = parseHex(color).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two colours, 1 to 21, whichever is lighter. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The custom properties declared in the rule whose selector is exactly `selector` (whitespace
 * aside), anywhere in `css` (also inside `@media`). Throws when there is no such rule.
 */
export function customProperties(css: string, selector: string): Record<string, string> {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const wanted = selector.replace(/\s+/g, '');
  const rule = /([^{}]+)\{([^{}]*)\}/g;
  for (let m = rule.exec(text); m; m = rule.exec(text)) {
    if (m[1].replace(/\s+/g, '') !== wanted) continue;
    const props: Record<string, string> = {};
    for (const d of m[2].matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) props[d[1]] = d[2].trim();
    return props;
  }
  throw new Error(`no rule for ${selector}`);
}
