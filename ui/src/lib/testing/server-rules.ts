/** Rules of the server that `FakeBackend` follows: quiet hours, grant conditions, resolving an interrupted call, the source filter. */
import { ApiError, type GrantCondition, type NotificationSettings, type QueueItem, type ResolutionKind } from '../backend/backend';
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
    if (c.op === 'prefix' && (typeof c.value !== 'string' || c.value === '')) throw bad(on + 'an empty prefix matches every string');
    if ((c.op === 'glob' || c.op === 'regex') && typeof c.value !== 'string') throw bad(on + 'glob and regex need a string');
    if (c.op === 'glob' && /^\**$/.test(c.value as string)) throw bad(on + 'a glob of only * matches every string');
    if (c.op === 'regex') {
      if ([...(c.value as string)].length > 500) throw bad(on + 'a regex of at most 500 characters');
      try {
        new RegExp(c.value as string, 'u');
      } catch (e) {
        throw bad(on + `not a regular expression: ${String(e)}`);
      }
    }
    if (!holds(c, args)) throw bad(`condition on ${JSON.stringify(c.pointer)} does not hold for the call it is made from`);
  }
}

/** A condition on a top-level argument (`/key`), as the server checks it. */
export function holds(c: GrantCondition, args: unknown): boolean {
  const key = c.pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  const v = args && typeof args === 'object' ? (args as Record<string, unknown>)[key] : undefined;
  switch (c.op) {
    case 'equals':
      return JSON.stringify(v) === JSON.stringify(c.value);
    case 'prefix':
      return typeof v === 'string' && typeof c.value === 'string' && prefixHolds(v, c.value);
    case 'glob':
      return typeof v === 'string' && typeof c.value === 'string' && globRegExp(c.value).test(v);
    case 'regex':
      try {
        return typeof v === 'string' && typeof c.value === 'string' && new RegExp(`^(?:${c.value})$`, 'u').test(v);
      } catch {
        return false;
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
