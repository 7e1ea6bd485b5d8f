/**
 * The detail's three-line summary (issue 45): what the call would do, where (a working directory,
 * a host, a database), and why — the agent's own words when it gave some, else why the console
 * paused it. Pure, and no HTML: every string here is untrusted (the agent's arguments and context)
 * and goes into the page as text through `MarkedText`.
 */
import type { QueueItem } from './backend/backend';
import { oneLine, questionOf, toolLine } from './call-summary';
import { changesLine } from './changes';

/** The what line is cut after this many characters (the arguments in full are below it). */
export const WHAT_LIMIT = 400;

const plain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** The first of `keys` in `obj` that holds text (not blank). */
function textAt(obj: unknown, keys: readonly string[]): string | null {
  if (!plain(obj)) return null;
  for (const k of keys) {
    const v = obj[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
}

/** The host of a URL-looking text (`https://db-3.internal:5432/x` → `db-3.internal:5432`); `null` when it has none. */
function hostOfUrl(text: string | null): string | null {
  if (text === null) return null;
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#\s]*@)?([^/?#\s]+)/i.exec(text.trim());
  return m ? m[1] : null;
}

/**
 * What the call would do, in one line: a coding agent's call in its own terms (`$ command`), a file
 * edit's change in words (`edits 3 lines in src/pay.py`), else its arguments; `null` for a question
 * (the question itself leads the detail).
 */
export function whatOf(item: QueueItem): { kind: 'tool' | 'changes' | 'args'; text: string } | null {
  if (questionOf(item) !== null) return null;
  if (item.changes) return { kind: 'changes', text: changesLine(item.changes) };
  const line = toolLine(item, WHAT_LIMIT);
  if (line !== null) return { kind: 'tool', text: line };
  const value = item.kind === 'suspend' && item.suspendPayload != null ? item.suspendPayload : item.args;
  return { kind: 'args', text: oneLine(value, WHAT_LIMIT).text };
}

export type Where = { cwd: string | null; host: string | null; database: string | null };

const CWD_KEYS = ['cwd', 'working_dir', 'workdir', 'working_directory'] as const;
const HOST_KEYS = ['host', 'hostname', 'server'] as const;
const URL_KEYS = ['url', 'endpoint', 'dsn', 'connection_string'] as const;
const DB_KEYS = ['database', 'db', 'dbname', 'database_name'] as const;

/** Where it would act: from what its agent said around it (`context`) first, then its arguments. */
export function whereOf(item: Pick<QueueItem, 'context' | 'args'>): Where {
  const sources = [item.context, item.args];
  const first = (keys: readonly string[]) => sources.map((s) => textAt(s, keys)).find((t) => t !== null) ?? null;
  return {
    cwd: first(CWD_KEYS),
    host: first(HOST_KEYS) ?? hostOfUrl(first(URL_KEYS)),
    database: first(DB_KEYS),
  };
}

const WHY_KEYS = ['why', 'reason', 'purpose', 'intent', 'justification', 'description', 'message'] as const;

/**
 * Why, in the agent's own words: what it said around the call (`context.why`, `reason`, …), else a
 * coding agent's description of its command (Claude Code's `Bash` `description`); `null` when it
 * said nothing. Untrusted: the agent may say anything.
 */
export function agentWordsOf(item: Pick<QueueItem, 'context' | 'args' | 'source' | 'toolName'>): string | null {
  const said = textAt(item.context, WHY_KEYS);
  if (said !== null) return said;
  if (item.source === 'claude-code' && item.toolName === 'Bash') return textAt(item.args, ['description']);
  return null;
}
