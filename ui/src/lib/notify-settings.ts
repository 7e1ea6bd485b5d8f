/**
 * Desktop notification settings as a form, and the status of notifications in words.
 * The server checks the times (`invalid_request` for one that is not `HH:MM`); nothing here
 * second-guesses it.
 */
import type { NotificationSettings, NotifyStatus } from './backend/backend';

/** The settings form: lists as text, quiet hours as an on/off switch and two times. */
export type SettingsForm = {
  enabled: boolean;
  quiet: boolean;
  quietStart: string;
  quietEnd: string;
  /** Comma-separated; empty: all engines (`null`). */
  engines: string;
  /** Comma-separated; empty: all agents (`null`). */
  agents: string;
  /** One per line (commas also separate); empty: none. */
  highRiskTools: string;
};

/** What the quiet-hours times start as when quiet hours are switched on for the first time. */
export const DEFAULT_QUIET = { start: '22:00', end: '07:00' };

/** Names separated by commas or new lines, trimmed, empty ones and repeats dropped; `null` when none is left. */
export function parseList(text: string): string[] | null {
  const names: string[] = [];
  for (const part of text.split(/[,\n]/)) {
    const name = part.trim();
    if (name !== '' && !names.includes(name)) names.push(name);
  }
  return names.length ? names : null;
}

export function formatList(list: readonly string[] | null | undefined, separator = ', '): string {
  return list == null ? '' : list.join(separator);
}

export function toForm(s: NotificationSettings): SettingsForm {
  const q = s.quietHours ?? null;
  return {
    enabled: s.enabled,
    quiet: q !== null,
    quietStart: q?.start ?? DEFAULT_QUIET.start,
    quietEnd: q?.end ?? DEFAULT_QUIET.end,
    engines: formatList(s.engines),
    agents: formatList(s.agents),
    highRiskTools: formatList(s.highRiskTools, '\n'),
  };
}

/**
 * The settings to send. A list whose text was not edited is sent exactly as loaded, so what the
 * text cannot show (an empty list `[]`: "none", or a name with a comma) survives a save of the
 * other fields; an edited one is parsed, empty meaning all (`null`) for the filters.
 */
export function fromForm(form: SettingsForm, loaded: NotificationSettings): NotificationSettings {
  const shown = toForm(loaded);
  const filter = (text: string, shownText: string, was: string[] | null | undefined) => (text === shownText ? (was ?? null) : parseList(text));
  return {
    enabled: form.enabled,
    quietHours: form.quiet ? { start: form.quietStart.trim(), end: form.quietEnd.trim() } : null,
    engines: filter(form.engines, shown.engines, loaded.engines),
    agents: filter(form.agents, shown.agents, loaded.agents),
    highRiskTools:
      form.highRiskTools === shown.highRiskTools ? [...(loaded.highRiskTools ?? [])] : (parseList(form.highRiskTools) ?? []),
  };
}

/**
 * - `off`: this process does not show notifications at all.
 * - `unavailable`: it tries, and showing failed (no notification service).
 * - `working`: at least one was shown.
 * - `untried`: on, but nothing was shown yet.
 */
export type NotifyState = 'off' | 'unavailable' | 'working' | 'untried';

export function notifyState(s: NotifyStatus): NotifyState {
  if (!s.running) return 'off';
  if (s.available === false) return 'unavailable';
  return s.available === true ? 'working' : 'untried';
}

/**
 * Whether `tool` is one of the high-risk tools: exact names, as the server compares them. Never
 * offered Approve from a notification; in the console, Approve asks to confirm first.
 */
export function isHighRisk(highRiskTools: readonly string[] | null | undefined, tool: string): boolean {
  return (highRiskTools ?? []).includes(tool);
}
