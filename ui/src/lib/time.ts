import { i18n } from './i18n/index.svelte';

/** Local, readable time for an RFC 3339 string, in the console's language; the input unchanged when it does not parse. */
export function formatTime(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay ? d.toLocaleTimeString(i18n.language) : d.toLocaleString(i18n.language);
}

/**
 * Local date and time for an RFC 3339 string, always with the date (`Jan 1, 10:02`; the year too when
 * it is not this one), in the console's language; the input unchanged when it does not parse.
 */
export function formatDateTime(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const sameYear = d.getFullYear() === now.getFullYear();
  return d.toLocaleString(i18n.language, {
    ...(sameYear ? {} : { year: 'numeric' }),
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** Hours and minutes for an RFC 3339 string of today (`10:32`), else its date and time (`formatDateTime`); the input unchanged when it does not parse. */
export function formatClock(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  if (d.toDateString() !== now.toDateString()) return formatDateTime(iso, now);
  return d.toLocaleTimeString(i18n.language, { hour: '2-digit', minute: '2-digit' });
}
