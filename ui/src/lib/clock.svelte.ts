/**
 * The time, for what a component shows relative to it ("4m ago"): reading `now()` inside a template
 * or `$derived` reads it again every TICK_MS while something on the page reads it, with one timer
 * for the whole page however many rows read it.
 */
import { createSubscriber } from 'svelte/reactivity';

/** How often relative times are read again. */
export const TICK_MS = 30_000;

const subscribe = createSubscriber((update) => {
  const timer = setInterval(update, TICK_MS);
  return () => clearInterval(timer);
});

/** Milliseconds since the epoch, as `Date.now()`; inside a reaction, read again every TICK_MS. */
export function now(): number {
  subscribe();
  return Date.now();
}
