import { i18n } from './i18n/index.svelte';

/** Local, readable time for an RFC 3339 string, in the console's language; the input unchanged when it does not parse. */
export function formatTime(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay ? d.toLocaleTimeString(i18n.language) : d.toLocaleString(i18n.language);
}
