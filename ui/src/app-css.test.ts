// The palettes of app.css, both themes: the colour pairs the components use, at WCAG AA contrast.
import { describe, expect, it } from 'vitest';
import css from './app.css?raw';
import { contrast, customProperties } from './lib/testing/contrast';

const light = customProperties(css, ':root');
const dark = customProperties(css, ":root[data-theme='dark']");

/** Text (4.5:1): [foreground, background, where]. */
const TEXT: [string, string, string][] = [
  ['text', 'bg', 'page'],
  ['text', 'panel', 'header, list, cards, inputs'],
  ['text', 'selected', 'selected row, selected tab, open-call notice'],
  ['text', 'code-bg', 'hovered row, JSON, kbd'],
  ['text', 'warn-bg', 'warnings, the approve confirm step'],
  ['text', 'danger-bg', 'error banners'],
  ['text', 'ok-bg', 'notification status'],
  ['muted', 'bg', 'hints, placeholders'],
  ['muted', 'panel', 'list second line, hints'],
  ['muted', 'selected', 'selected row second line'],
  ['muted', 'code-bg', 'JSON punctuation, hovered row'],
  ['muted', 'danger-bg', 'inline error code'],
  ['muted', 'warn-bg', 'hints in warnings'],
  ['accent', 'bg', 'link buttons'],
  ['accent', 'panel', 'link buttons'],
  ['accent', 'selected', 'suspend badge'],
  ['accent', 'code-bg', 'run header buttons'],
  ['accent-text', 'accent', 'primary buttons, pending count'],
  ['danger', 'bg', 'errors'],
  ['danger', 'panel', 'decline button, errors'],
  ['danger', 'danger-bg', 'failed delivery badge, escapes in JSON strings'],
  ['danger', 'selected', 'Decline button of a run\'s confirmation'],
  ['warn', 'bg', 'gone call'],
  ['warn', 'panel', 'delivery retries in the list'],
  ['warn', 'selected', 'delivery retries in the selected row'],
  ['warn', 'warn-bg', 'approval badge, awaiting delivery'],
  ['ok', 'panel', 'live connection'],
  ['ok', 'bg', 'audit verified'],
  ['ok', 'ok-bg', 'delivered badge'],
  ['key', 'code-bg', 'JSON keys'],
  ['str', 'code-bg', 'JSON strings'],
  ['str', 'panel', 'JSON strings'],
  ['num', 'code-bg', 'JSON numbers'],
  ['bool', 'code-bg', 'JSON booleans and null'],
  ['risk-low', 'risk-low-bg', 'risk chip: low'],
  ['risk-medium', 'risk-medium-bg', 'risk chip: medium'],
  ['risk-high', 'risk-high-bg', 'risk chip: high'],
  ['risk-critical', 'risk-critical-bg', 'risk chip: critical'],
  ['text', 'risk-high-bg', 'the deliberate approval step, the risk box of a high call'],
  ['text', 'risk-medium-bg', 'the risk box of a medium call'],
  ['muted', 'panel', 'risk chip: not rated'],
];

/** Focus rings and the boundaries of controls (3:1) against what is next to them. */
const UI: [string, string, string][] = [
  ['focus', 'bg', 'focus ring'],
  ['focus', 'panel', 'focus ring'],
  ['focus', 'selected', 'focus ring inside the selected row'],
  ['focus', 'code-bg', 'focus ring in the JSON tree'],
  ['focus', 'warn-bg', 'focus ring in the confirm step'],
  ['focus', 'danger-bg', 'focus ring in error banners'],
  ['control-border', 'bg', 'inputs and buttons'],
  ['control-border', 'panel', 'inputs and buttons'],
  ['control-border', 'warn-bg', 'Cancel in the confirm step'],
  ['control-border', 'selected', 'buttons of a run\'s confirmation'],
  ['danger', 'selected', 'Decline button border in a run\'s confirmation'],
  ['control-border', 'danger-bg', 'buttons in error banners'],
  ['accent', 'bg', 'primary button fill'],
  ['accent', 'panel', 'primary button fill'],
  ['danger', 'panel', 'decline button border'],
  ['accent', 'panel', 'team charts: p50 bars, the pending line'],
  ['warn', 'panel', 'team charts: p90 bars'],
  ['muted', 'panel', 'team charts: axis labels and legend'],
  ['risk-low', 'panel', 'risk chip outline: low'],
  ['risk-medium', 'panel', 'risk chip outline: medium'],
  ['risk-high', 'panel', 'risk chip outline: high'],
  ['risk-critical-bg', 'panel', 'risk chip fill: critical'],
  ['risk-high', 'risk-high-bg', 'the deliberate approval step border'],
  ['focus', 'risk-high-bg', 'focus ring in the deliberate approval step'],
  ['control-border', 'risk-high-bg', 'fields and buttons in the deliberate approval step'],
];

describe.each([
  ['light', light],
  ['dark', dark],
])('the %s palette', (_name, palette) => {
  const color = (name: string) => {
    const v = palette[`--${name}`];
    if (!v) throw new Error(`--${name} is not set`);
    return v;
  };

  it.each(TEXT)('%s on %s (%s) reaches 4.5:1', (fg, bg) => {
    expect(contrast(color(fg), color(bg))).toBeGreaterThanOrEqual(4.5);
  });

  it.each(UI)('%s against %s (%s) reaches 3:1', (fg, bg) => {
    expect(contrast(color(fg), color(bg))).toBeGreaterThanOrEqual(3);
  });
});

describe('app.css themes', () => {
  it('sets every colour of the light palette in the dark one too, with its own colour scheme', () => {
    const colours = (p: Record<string, string>) => Object.keys(p).filter((k) => k !== '--mono').sort();
    expect(colours(dark)).toEqual(colours(light));
    expect(css).toMatch(/:root\[data-theme='dark'\]\s*\{[^}]*color-scheme:\s*dark;/);
  });

  it('paints the dark background before main.ts has set a theme, when the system is dark', () => {
    const early = customProperties(css, ':root:not([data-theme])');
    expect(early['--bg']).toBe(dark['--bg']);
    expect(css).toMatch(/@media \(prefers-color-scheme: dark\)\s*\{\s*:root:not\(\[data-theme\]\)/);
  });

  it('checks contrast the WCAG way', () => {
    expect(contrast('#000', '#fff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});
