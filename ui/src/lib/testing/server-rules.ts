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

/** A condition on a top-level argument (`/key`), as the server checks it. */
export function holds(c: GrantCondition, args: unknown): boolean {
  const key = c.pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  const v = args && typeof args === 'object' ? (args as Record<string, unknown>)[key] : undefined;
  switch (c.op) {
    case 'equals':
      return JSON.stringify(v) === JSON.stringify(c.value);
    case 'prefix':
      return typeof v === 'string' && typeof c.value === 'string' && v.startsWith(c.value) && !shellControl(v.slice(c.value.length));
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
