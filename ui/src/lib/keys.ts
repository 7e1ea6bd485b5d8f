/**
 * Keyboard triage: which action a key press asks for. Pure: the console decides what each action
 * does with the calls it shows. A shortcut never fires while the operator types in a field (except
 * Esc, which leaves it), nor with Ctrl, Alt or Meta held (those belong to the browser and the
 * desktop), nor when something else already handled the key.
 */

import type { Messages } from './i18n/index.svelte';

export type KeyAction =
  | 'next'
  | 'prev'
  | 'first'
  | 'last'
  | 'open'
  | 'approve'
  | 'edit'
  | 'decline'
  | 'resume'
  | 'search'
  | 'help'
  | 'escape';

/** What `keyAction` reads of a `KeyboardEvent`. */
export type KeyPress = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'altKey' | 'metaKey' | 'target' | 'defaultPrevented' | 'repeat' | 'isComposing'>;

/** The shortcuts as the help dialog lists them, in this order; `what` names their words (`i18n` `queue.shortcuts`). */
export const SHORTCUTS = [
  { keys: ['j', '↓'], what: 'next' },
  { keys: ['k', '↑'], what: 'prev' },
  { keys: ['Home', 'End'], what: 'ends' },
  { keys: ['Space'], what: 'select' },
  { keys: ['Enter'], what: 'open' },
  { keys: ['a'], what: 'approve' },
  { keys: ['e'], what: 'edit' },
  { keys: ['d'], what: 'decline' },
  { keys: ['r'], what: 'resume' },
  { keys: ['/'], what: 'search' },
  { keys: ['?'], what: 'help' },
  { keys: ['Esc'], what: 'escape' },
  { keys: ['a', 'e', 'd', 'r'], what: 'refused' },
] as const satisfies readonly { keys: readonly string[]; what: keyof Messages['queue']['shortcuts'] }[];

/** Letters that act on a call: held down, they must not act again on the next call shown. */
const ONCE: Partial<Record<string, KeyAction>> = { a: 'approve', e: 'edit', d: 'decline', r: 'resume', '/': 'search', '?': 'help' };

/** Keys that move the selection anywhere on the page (the arrows, Home and End only in the list: elsewhere they scroll). */
const MOVE: Partial<Record<string, KeyAction>> = { j: 'next', k: 'prev' };
const LIST_MOVE: Partial<Record<string, KeyAction>> = { ArrowDown: 'next', ArrowUp: 'prev', Home: 'first', End: 'last' };

export function keyAction(e: KeyPress): KeyAction | null {
  if (e.defaultPrevented || e.isComposing || e.ctrlKey || e.altKey || e.metaKey) return null;
  if (e.key === 'Escape') return e.repeat ? null : 'escape';
  const target = e.target instanceof Element ? e.target : null;
  if (isTyping(target)) return null;
  if (MOVE[e.key]) return MOVE[e.key]!;
  if (LIST_MOVE[e.key]) return inList(target) ? LIST_MOVE[e.key]! : null;
  // Enter activates buttons, links and summaries itself; it opens the call from the list or from nowhere in particular.
  if (e.key === 'Enter') return !e.repeat && (inList(target) || isPageLevel(target)) ? 'open' : null;
  const once = ONCE[e.key];
  return once && !e.repeat ? once : null;
}

/** Whether keys pressed in `el` are typed text: text fields, selects, editable content. */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  // `isContentEditable` is not implemented everywhere (jsdom): read the attribute too.
  return (el instanceof HTMLElement && el.isContentEditable) || !!el.closest('[contenteditable]:not([contenteditable="false"])');
}

function inList(el: Element | null): boolean {
  return !!el?.closest('[role="listbox"]');
}

/** No control has the focus: the page itself, or an element focused only to be read (a heading). */
function isPageLevel(el: Element | null): boolean {
  if (!el || el === document.body || el === document.documentElement) return true;
  return el.getAttribute('tabindex') === '-1' && !el.matches('button, a[href], summary, [role="button"], [role="tab"]');
}

/**
 * How long a call that needs a deliberate approval (high or critical, or hidden or look-alike
 * characters in its arguments) ignores decision keys after it appeared: a key meant for the call
 * before it (pressed as the list moved on) must not start a decision of this one.
 */
export const SETTLE_MS = 400;

/** How long the deliberate approval's button (or Enter or Space on it) is held to approve. */
export const HOLD_MS = 1000;

/** Whether a decision key pressed at `now` comes too soon after the call appeared at `shownAt` (both in ms). */
export function settling(shownAt: number, now: number): boolean {
  return now - shownAt < SETTLE_MS;
}
