/**
 * What a call would do, in one line, and what became of it: the queue list's rows and the detail's
 * lead read these. Pure, and no HTML: the text is untrusted (arguments, questions, operator names)
 * and goes into the page as text nodes through `MarkedText`, which marks its hidden and look-alike
 * characters as the detail does.
 */
import type { Decision, QueueItem } from './backend/backend';
import { flagsIn } from './confusables';

/** A row's summary is cut after this many characters. */
export const SUMMARY_LIMIT = 160;

/**
 * `value` as one line of at most `limit` characters (then `…`), without recursion and stopping
 * once the line is full, whatever its size or depth: a top-level object as `key: value, …`, nested
 * ones as `{key: value}`, arrays as `[a, b]`, strings in quotes with their own characters (so
 * `MarkedText` marks hidden ones; line breaks and tabs read as spaces). Never cuts a character in two.
 */
export function oneLine(value: unknown, limit = SUMMARY_LIMIT): { text: string; cut: boolean } {
  const out: string[] = [];
  let size = 0;
  let full = false;
  const emit = (piece: string) => {
    if (full) return;
    if (size + piece.length <= limit) {
      out.push(piece);
      size += piece.length;
      return;
    }
    let end = limit - size;
    // Not between the two halves of a surrogate pair.
    const c = piece.charCodeAt(end - 1);
    if (end > 0 && c >= 0xd800 && c <= 0xdbff) end--;
    out.push(piece.slice(0, end));
    size = limit;
    full = true;
  };
  const scalar = (v: unknown): string => {
    if (typeof v === 'string') return `"${v.replace(/[\r\n\t]+/g, ' ')}"`;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return 'null';
  };

  type Frame = { obj: unknown[] | Record<string, unknown>; keys: string[] | null; i: number; top: boolean };
  const stack: Frame[] = [];
  const open = (v: unknown, top: boolean) => {
    if (Array.isArray(v)) {
      emit('[');
      stack.push({ obj: v, keys: null, i: 0, top: false });
    } else if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      if (!top) emit('{');
      stack.push({ obj, keys: Object.keys(obj), i: 0, top });
    } else emit(scalar(v));
  };

  open(value, true);
  while (stack.length > 0 && !full) {
    const f = stack[stack.length - 1];
    const n = f.keys ? f.keys.length : (f.obj as unknown[]).length;
    if (f.i >= n) {
      stack.pop();
      if (f.keys === null) emit(']');
      else if (!f.top) emit('}');
      continue;
    }
    if (f.i > 0) emit(', ');
    let child: unknown;
    if (f.keys) {
      const k = f.keys[f.i];
      emit(`${k}: `);
      child = (f.obj as Record<string, unknown>)[k];
    } else child = (f.obj as unknown[])[f.i];
    f.i++;
    open(child, false);
  }
  const cut = full || stack.length > 0;
  return { text: out.join('') + (cut ? '…' : ''), cut };
}

/** Text as one line (line breaks and tabs as spaces) of at most `limit` characters, then `…`; never cuts a character in two. */
export function cutText(text: string, limit = SUMMARY_LIMIT): string {
  const line = text.replace(/[\r\n\t]+/g, ' ');
  if (line.length <= limit) return line;
  let end = limit;
  const c = line.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return line.slice(0, end) + '…';
}

/**
 * The question a suspended call asks: the suspend payload's `message` or `question` text when it
 * has one (or the payload itself when it is a string); `null` otherwise.
 */
export function questionOf(item: Pick<QueueItem, 'kind' | 'suspendPayload'>): string | null {
  if (item.kind !== 'suspend') return null;
  const p = item.suspendPayload;
  if (typeof p === 'string') return p.trim() === '' ? null : p;
  if (p !== null && typeof p === 'object' && !Array.isArray(p)) {
    for (const key of ['message', 'question']) {
      const v = (p as Record<string, unknown>)[key];
      if (typeof v === 'string' && v.trim() !== '') return v;
    }
  }
  return null;
}

/** A row's one line: what the call would do (its arguments) or, suspended, what it asks. */
export type Summary = {
  /** `question`: the text is the question itself; `payload`: the suspend payload, cut; `args`: the arguments, cut. */
  what: 'args' | 'question' | 'payload';
  text: string;
  /** Hidden and look-alike characters anywhere in the value summarised (also past the cut). */
  hidden: number;
  lookalike: number;
};

const summaries = new WeakMap<QueueItem, Summary>();

/** The summary of a call, made once per copy of it (items are replaced, never changed, when they change). */
export function summaryOf(item: QueueItem, limit = SUMMARY_LIMIT): Summary {
  const known = summaries.get(item);
  if (known) return known;
  let s: Summary;
  const question = questionOf(item);
  if (question !== null) {
    const flags = flagsIn(question);
    s = { what: 'question', text: cutText(question, limit), hidden: flags.hidden, lookalike: flags.lookalike };
  } else {
    const value = item.kind === 'suspend' && item.suspendPayload != null ? item.suspendPayload : item.args;
    const flags = flagsIn(value);
    s = { what: item.kind === 'suspend' && item.suspendPayload != null ? 'payload' : 'args', text: oneLine(value, limit).text, hidden: flags.hidden, lookalike: flags.lookalike };
  }
  summaries.set(item, s);
  return s;
}

/** What became of a decided call, as the rows and the detail tell it. */
export type OutcomeKind = 'approved' | 'edited' | 'declined' | 'answered' | 'expired';

export function outcomeKind(d: Pick<Decision, 'kind' | 'expiredAfterSecs'>): OutcomeKind {
  if (d.expiredAfterSecs != null) return 'expired';
  switch (d.kind) {
    case 'approve':
      return 'approved';
    case 'edit':
      return 'edited';
    case 'decline':
      return 'declined';
    default:
      return 'answered';
  }
}

/** Why a call waits, as the server says (`pauseReason`; absent from older servers). */
export type PauseReason = NonNullable<QueueItem['pauseReason']>;

/** The words of `detail.pauseReasons`, by name. */
export type PauseReasonWords = Record<
  | 'tool'
  | 'request'
  | 'requestRule'
  | 'requestRuleAny'
  | 'agentRule'
  | 'agentRuleAny'
  | 'agentRuleUnnamed'
  | 'agentRuleUnnamedAny'
  | 'predicate'
  | 'predicateFailed'
  | 'predicateFailedNoDetail'
  | 'suspended'
  | 'remote'
  | 'submitted',
  string
>;

/**
 * Why a call paused, as a message with places (`{rule}`, `{agent}`, `{detail}`) and what fills them;
 * `null` when the server did not say (or said something this console does not know: then the kind
 * as it came, in `unknown`). `rule` is the rule's position in its list, counted from 1 (as the
 * server sends it).
 */
export function pauseReasonText(
  reason: QueueItem['pauseReason'],
  words: PauseReasonWords,
): { text: string; rule?: string; agent?: string; detail?: string } | { unknown: string } | null {
  if (reason == null || typeof reason !== 'object') return null;
  const rule = typeof reason.rule === 'number' && Number.isFinite(reason.rule) ? String(reason.rule) : undefined;
  const agent = typeof reason.agent === 'string' && reason.agent !== '' ? reason.agent : undefined;
  const detail = typeof reason.detail === 'string' && reason.detail.trim() !== '' ? reason.detail : undefined;
  switch (reason.kind) {
    case 'tool':
    case 'request':
    case 'predicate':
    case 'suspended':
    case 'remote':
    case 'submitted':
      return { text: words[reason.kind] };
    case 'requestRule':
      return { text: rule ? words.requestRule : words.requestRuleAny, rule };
    case 'agentRule':
      if (agent) return { text: rule ? words.agentRule : words.agentRuleAny, rule, agent };
      return { text: rule ? words.agentRuleUnnamed : words.agentRuleUnnamedAny, rule };
    case 'predicateFailed':
      return detail ? { text: words.predicateFailed, detail } : { text: words.predicateFailedNoDetail };
    default:
      return typeof reason.kind === 'string' && (reason.kind as string) !== '' ? { unknown: reason.kind } : null;
  }
}
