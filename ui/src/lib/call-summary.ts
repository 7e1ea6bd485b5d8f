/**
 * What a call would do, in one line, and what became of it: the queue list's rows and the detail's
 * lead read these. Pure, and no HTML: the text is untrusted (arguments, questions, operator names)
 * and goes into the page as text nodes through `MarkedText`, which marks its hidden and look-alike
 * characters as the detail does.
 */
import type { Decision, QueueItem } from './backend/backend';
import { changesLine } from './changes';
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

/** Each side of an `Edit`'s `old → new` in a tool line is cut after this many characters. */
const EDIT_SIDE_LIMIT = 48;

/**
 * The first line of `text` that is not blank (spaces and tabs only; other characters, hidden ones
 * too, stay for `MarkedText` to mark), without its leading and trailing spaces and tabs, cut at
 * `limit`; `…` when cut or when more text follows. `""` when all of it is blank. Reads no further
 * than it needs to.
 */
function firstLine(text: string, limit: number): string {
  const start = text.search(/[^ \t\r\n]/);
  if (start < 0) return '""';
  const br = /[\r\n]/g;
  br.lastIndex = start;
  const end = br.exec(text)?.index ?? text.length;
  const line = text.slice(start, end).replace(/[ \t]+$/, '');
  const rest = /[^ \t\r\n]/g;
  rest.lastIndex = end;
  const more = rest.test(text);
  return line.length > limit ? cutText(line, limit) : more ? `${line}…` : line;
}

const plainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The files an `apply_patch` patch names (`*** Update File: `, `*** Add File: `, `*** Delete File: ` lines), in order, once each, until `limit` characters. */
function patchFiles(patch: string, limit: number): string[] {
  const files = new Set<string>();
  let size = 0;
  // Lines end at line breaks only: a name keeps its other characters (hidden ones too, for `MarkedText`).
  for (const m of patch.matchAll(/(?:^|[\r\n])\*\*\* (?:Update|Add|Delete) File: ([^\r\n]+)/g)) {
    const name = m[1];
    if (name.trim() === '' || files.has(name)) continue;
    files.add(name);
    size += name.length + 2;
    if (size > limit) break;
  }
  return [...files];
}

/** The coding agents' tools that run a shell line or write or edit one file, by the shape of their arguments. */
const FILE_AND_SHELL_TOOLS: Partial<Record<QueueItem['source'], Record<string, 'shell' | 'write' | 'edit' | 'edits'>>> = {
  'claude-code': { Bash: 'shell', Write: 'write', Edit: 'edit', MultiEdit: 'edits' },
  gemini: { run_shell_command: 'shell', write_file: 'write', replace: 'edit' },
};

/**
 * What a coding agent's call would do, in the agent's own terms, for the tools whose arguments have
 * a known shape: Claude Code's `Bash` (`$ command`), `Write` (`write path`), `Edit` (`edit path: old
 * → new`, the first line of each, shortened) and `MultiEdit` (`edit path`); Codex's `shell` (`$ ` and the command's
 * words) and `apply_patch` (`patch` and the files it names); Gemini CLI's `run_shell_command`,
 * `write_file` and `replace`, as Claude Code's `Bash`, `Write` and `Edit`. One line of at most `limit` characters;
 * `null` for other sources and tools, and for arguments of another shape (then the arguments are
 * summarised as for any call). Untrusted text, kept as it came (hidden characters stay, for
 * `MarkedText` to mark); line breaks read as spaces.
 */
export function toolLine(item: Pick<QueueItem, 'source' | 'kind' | 'toolName' | 'args'>, limit = SUMMARY_LIMIT): string | null {
  if (item.kind !== 'approval' || !plainObject(item.args)) return null;
  const a = item.args;
  let line: string | null = null;
  // Claude Code's and Gemini CLI's file and shell tools take the same arguments under other names.
  const tools = FILE_AND_SHELL_TOOLS[item.source];
  const shape = tools !== undefined && Object.hasOwn(tools, item.toolName) ? tools[item.toolName] : undefined;
  if (shape !== undefined) {
    switch (shape) {
      case 'shell':
        if (nonEmpty(a.command)) line = `$ ${a.command}`;
        break;
      case 'write':
        if (nonEmpty(a.file_path) && typeof a.content === 'string') line = `write ${a.file_path}`;
        break;
      case 'edit':
        if (nonEmpty(a.file_path) && typeof a.old_string === 'string' && typeof a.new_string === 'string') {
          line = `edit ${a.file_path}: ${firstLine(a.old_string, EDIT_SIDE_LIMIT)} → ${firstLine(a.new_string, EDIT_SIDE_LIMIT)}`;
        }
        break;
      case 'edits':
        if (nonEmpty(a.file_path) && Array.isArray(a.edits)) line = `edit ${a.file_path}`;
        break;
    }
  } else if (item.source === 'codex') {
    switch (item.toolName) {
      case 'shell': {
        const cmd = a.command;
        if (Array.isArray(cmd) && cmd.length > 0 && cmd.every((w) => typeof w === 'string') && cmd.some(nonEmpty)) line = `$ ${cmd.join(' ')}`;
        break;
      }
      case 'apply_patch': {
        const patch = typeof a.input === 'string' ? a.input : typeof a.patch === 'string' ? a.patch : null;
        const files = patch === null ? [] : patchFiles(patch, limit);
        if (files.length > 0) line = `patch ${files.join(', ')}`;
        break;
      }
    }
  }
  return line === null ? null : cutText(line, limit);
}

/** A row's one line: what the call would do (its arguments) or, suspended, what it asks. */
export type Summary = {
  /**
   * `question`: the text is the question itself; `payload`: the suspend payload, cut; `args`: the
   * arguments, cut; `tool`: a coding agent's call in its own terms (`toolLine`), cut.
   */
  what: 'args' | 'question' | 'payload' | 'tool' | 'changes';
  text: string;
  /** Hidden and look-alike characters anywhere in the value summarised (also past the cut; for `tool`, in all the arguments). */
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
  const tool = question === null ? toolLine(item, limit) : null;
  if (item.changes && question === null) {
    // A file edit says what it changes ("edits 3 lines in src/pay.py"), as the server read it.
    const flags = flagsIn(item.args);
    s = { what: 'changes', text: cutText(changesLine(item.changes), limit), hidden: flags.hidden, lookalike: flags.lookalike };
  } else if (tool !== null) {
    // Marks count over all the arguments, not only the parts in the line.
    const flags = flagsIn(item.args);
    s = { what: 'tool', text: tool, hidden: flags.hidden, lookalike: flags.lookalike };
  } else if (question !== null) {
    const flags = flagsIn(question);
    s = { what: 'question', text: cutText(question, limit), hidden: flags.hidden, lookalike: flags.lookalike };
  } else {
    const value = item.kind === 'suspend' && item.suspendPayload != null ? item.suspendPayload : item.args;
    const flags = flagsIn(value);
    s = { what: item.kind === 'suspend' && item.suspendPayload != null ? 'payload' : 'args', text: oneLine(value, limit).text, hidden: flags.hidden, lookalike: flags.lookalike };
  }
  // A changes line is in the console's language, which may change: not kept.
  if (s.what !== 'changes') summaries.set(item, s);
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
