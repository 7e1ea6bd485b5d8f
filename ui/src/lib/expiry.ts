/**
 * Time limits in words: durations ("1 h", "15 min"), a pending call's countdown ("expires in 4 min",
 * in the warning style inside the settings' warn window), snooze targets, and the settings editor's
 * amount + unit fields.
 */
import type { ExpiryRule, ExpirySettings } from './backend/backend';
import { i18n } from './i18n/index.svelte';

/** The server's default warn window (seconds) until the settings are read. */
export const DEFAULT_WARN_BEFORE_SECS = 300;

export type DurationUnit = 'seconds' | 'minutes' | 'hours' | 'days';
export const UNIT_SECS: Record<DurationUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/** `3600` → `1 h`, `900` → `15 min`, `86400` → `1 day`, `90` → `1 min 30 s`; two units at most. In the console's language. */
export function formatDuration(secs: number): string {
  const w = i18n.m.detail;
  const s = Math.max(0, Math.round(secs));
  const parts: string[] = [];
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (d) parts.push(w.days(d));
  if (h) parts.push(w.hours(h));
  if (m) parts.push(w.minutes(m));
  if (r || parts.length === 0) parts.push(w.seconds(r));
  return parts.slice(0, 2).join(' ');
}

/** A countdown rounded to what is worth reading: seconds under a minute, then minutes, hours, days. */
export function formatRemaining(secs: number): string {
  const w = i18n.m.detail;
  if (secs < 60) return w.seconds(Math.max(0, Math.ceil(secs)));
  if (secs < 3600) return w.minutes(Math.ceil(secs / 60));
  if (secs < 86_400) {
    const h = Math.floor(secs / 3600);
    const m = Math.round((secs % 3600) / 60);
    return m ? `${w.hours(h)} ${w.minutes(m)}` : w.hours(h);
  }
  const d = Math.floor(secs / 86_400);
  const h = Math.round((secs % 86_400) / 3600);
  return h ? `${w.days(d)} ${w.hours(h)}` : w.days(d);
}

export type Countdown = { text: string; remainingSecs: number; warn: boolean; over: boolean };

/** The countdown of a deadline at `now`: `expires in 4 min` (warn inside the window), or `expiring now` once past. */
export function countdown(expiresAt: string, now: number, warnBeforeSecs: number): Countdown | null {
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return null;
  const remainingSecs = (at - now) / 1000;
  if (remainingSecs <= 0) return { text: i18n.m.detail.expiringNow, remainingSecs, warn: true, over: true };
  return { text: i18n.m.detail.expiresIn(formatRemaining(remainingSecs)), remainingSecs, warn: remainingSecs <= warnBeforeSecs, over: false };
}

/** The snooze buttons: each moves the deadline later by this much. */
export const SNOOZES: readonly { secs: number }[] = [{ secs: 900 }, { secs: 3600 }, { secs: 86_400 }];

/** A snooze button's label: `+15 min`. */
export function snoozeLabel(secs: number): string {
  return `+${formatDuration(secs)}`;
}

/** The server's snooze range (seconds from now). */
const SNOOZE_MIN = 60;
const MAX_SECS = 30 * 86_400;

/**
 * The `secs` (from now) a snooze sends for "the deadline `by` later": what is left of the current
 * deadline plus `by`, within the server's 60 s – 30 days. A deadline already past counts from now.
 */
export function snoozeSecs(expiresAt: string | null | undefined, by: number, now: number): number {
  const at = expiresAt ? Date.parse(expiresAt) : NaN;
  const left = Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - now) / 1000));
  return Math.min(MAX_SECS, Math.max(SNOOZE_MIN, left + by));
}

/** A rule as the editor holds it: an amount in a unit. */
export type RuleDraft = { tool: string; amount: string | number | null; unit: DurationUnit };
export type ExpiryForm = { rules: RuleDraft[]; warnAmount: string | number | null; warnUnit: DurationUnit };

/** The largest unit that divides `secs` exactly (`5400` → 90 minutes, `7200` → 2 hours). */
export function toUnits(secs: number): { amount: string; unit: DurationUnit } {
  for (const unit of ['days', 'hours', 'minutes'] as const) {
    if (secs > 0 && secs % UNIT_SECS[unit] === 0) return { amount: String(secs / UNIT_SECS[unit]), unit };
  }
  return { amount: String(secs), unit: 'seconds' };
}

export function toExpiryForm(s: ExpirySettings): ExpiryForm {
  const warn = toUnits(s.warnBeforeSecs ?? DEFAULT_WARN_BEFORE_SECS);
  return {
    rules: (s.rules ?? []).map((r) => ({ tool: r.tool, ...toUnits(r.afterSecs) })),
    warnAmount: warn.amount,
    warnUnit: warn.unit,
  };
}

/**
 * The settings to send. Amounts are not checked here beyond being numbers: the server checks the
 * ranges and says which rule is wrong (`invalid_request`). A blank or non-numeric amount is sent as
 * `0`, which the server refuses with its own message.
 */
export function fromExpiryForm(f: ExpiryForm): ExpirySettings {
  // A number input bound in Svelte holds a number (or `null` when empty), a text one a string.
  const secs = (amount: string | number | null, unit: DurationUnit) => {
    const t = String(amount ?? '').trim();
    const n = Number(t);
    return Number.isFinite(n) && t !== '' ? Math.round(n * UNIT_SECS[unit]) : 0;
  };
  const rules: ExpiryRule[] = f.rules.map((r) => ({ tool: r.tool.trim(), afterSecs: secs(r.amount, r.unit) }));
  return { rules, warnBeforeSecs: secs(f.warnAmount, f.warnUnit) };
}
