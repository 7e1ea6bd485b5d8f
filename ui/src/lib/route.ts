/**
 * Where the console is, as a link: the view, the queue's stage tab, its filters (those the list's
 * filter bar shows), order and search, the call open, and a view's own parameters (a Settings
 * section, the audit log's filters). Kept in the page's fragment as URL parameters — `#view=audit`, `#tab=decided&q=rm`, `#call=ID` — because
 * the fragment never reaches a server, the desktop window has no server paths to route, and the
 * links that already exist keep their meaning: a channel's `#call=ID` opens that call, the printed
 * `#token=` is taken by the token store before the console starts.
 *
 * A link is untrusted: it can say what to show, never do anything. Every value is checked against
 * what it may be, and what is unknown, malformed or too long is dropped (the default stands).
 */
import type { CallSource, ItemKind, QueueFilter } from './backend/backend';
import { isCallSource } from './call-source';
import { CONSOLE_TABS, type ConsoleTab } from './console.svelte';

/** The queue's stage tabs (the server's `TabFilter`), `pending` first: the default. */
export const STAGE_TABS = ['pending', 'awaiting_delivery', 'decided', 'expired', 'gone', 'all'] as const satisfies readonly NonNullable<QueueFilter['tab']>[];
export type StageTab = (typeof STAGE_TABS)[number];

export type Route = {
  view: ConsoleTab;
  /** The queue's stage tab. */
  tab: StageTab;
  /** The search sent to the server (the words of the box once typing paused). */
  q: string;
  engine: string;
  agent: string;
  tool: string;
  thread: string;
  source: CallSource | '';
  kind: ItemKind | '';
  sort: 'newest' | 'oldest';
  /** The call open in the queue view (`null`: none, or the list screen of a phone). */
  call: string | null;
  /** The view's own parameters, for views other than the queue (its section, its filters), by name. */
  params: Readonly<Record<string, string>>;
};

export const HOME: Route = Object.freeze({
  view: 'queue',
  tab: 'pending',
  q: '',
  engine: '',
  agent: '',
  tool: '',
  thread: '',
  source: '',
  kind: '',
  sort: 'newest',
  call: null,
  params: Object.freeze({}),
});

/** The queue's free-text filters, in the order a link spells them. */
const TEXT_FILTERS = ['engine', 'agent', 'tool', 'thread'] as const;
/** The longest value kept from a link (a search, a filter, a call id); longer ones are dropped. */
export const MAX_VALUE = 500;
/** A view's parameter: a short name of letters, digits, `-`, `_` (never one of the console's own names). */
const PARAM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** At most this many view parameters are kept from a link. */
const MAX_PARAMS = 16;
/**
 * Names a view's parameters may not take: the console's own, and what other parts of the page read
 * from the fragment (the token, the remote listener's pairing code and pin) — never carried along.
 */
const RESERVED = new Set<string>(['view', 'tab', 'q', 'source', 'kind', 'sort', 'call', ...TEXT_FILTERS, 'token', 'pair', 'pin']);

/** A text value as kept: trimmed, without control characters, `''` if too long. */
function text(value: string | null): string {
  if (value === null) return '';
  const v = value.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return v.length > MAX_VALUE ? '' : v;
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** The route a fragment names (`#view=audit&…`, or `''`); anything it does not name is the default. */
export function parseRoute(hash: string): Route {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const view = oneOf(p.get('view'), CONSOLE_TABS, 'queue');
  const call = text(p.get('call'));
  const params: Record<string, string> = {};
  if (view !== 'queue') {
    for (const [name, value] of p) {
      if (Object.keys(params).length >= MAX_PARAMS) break;
      if (RESERVED.has(name) || !PARAM_NAME.test(name) || name in params) continue;
      const v = text(value);
      if (v !== '') params[name] = v;
    }
  }
  const source = p.get('source');
  return {
    view,
    tab: oneOf(p.get('tab'), STAGE_TABS, 'pending'),
    q: text(p.get('q')),
    engine: text(p.get('engine')),
    agent: text(p.get('agent')),
    tool: text(p.get('tool')),
    thread: text(p.get('thread')),
    source: isCallSource(source) ? source : '',
    kind: oneOf<ItemKind | ''>(p.get('kind'), ['approval', 'suspend'], ''),
    sort: oneOf(p.get('sort'), ['newest', 'oldest'], 'newest'),
    // A call is open in the queue view only.
    call: view === 'queue' && call !== '' ? call : null,
    params: view === 'queue' ? {} : params,
  };
}

/**
 * The fragment of a route (`''` for the default one): only what differs from the default, in a
 * fixed order, so one place has one address. The queue's tab and filters are kept with other views
 * too (going back to the queue finds them as they were); a call only with the queue.
 */
export function formatRoute(r: Route): string {
  const p = new URLSearchParams();
  if (r.view !== 'queue') p.set('view', r.view);
  if (r.tab !== 'pending') p.set('tab', r.tab);
  if (r.q !== '') p.set('q', r.q);
  for (const f of TEXT_FILTERS) if (r[f] !== '') p.set(f, r[f]);
  if (r.source !== '') p.set('source', r.source);
  if (r.kind !== '') p.set('kind', r.kind);
  if (r.sort !== 'newest') p.set('sort', r.sort);
  if (r.view === 'queue' && r.call) p.set('call', r.call);
  if (r.view !== 'queue') {
    for (const name of Object.keys(r.params).sort()) {
      if (!RESERVED.has(name) && PARAM_NAME.test(name) && r.params[name] !== '') p.set(name, r.params[name]);
    }
  }
  const s = p.toString();
  return s === '' ? '' : `#${s}`;
}

/** The queue's filters a route names (its search as `q`). */
export function queueFilterOf(r: Route): QueueFilter {
  return {
    tab: r.tab,
    engine: r.engine,
    agent: r.agent,
    tool: r.tool,
    thread: r.thread,
    source: r.source,
    kind: r.kind,
    sort: r.sort,
    q: r.q === '' ? undefined : r.q,
  };
}

/** The route's part that the queue's filters make, from what the list was fetched for. */
export function routeOfFilter(f: QueueFilter): Pick<Route, 'tab' | 'q' | 'engine' | 'agent' | 'tool' | 'thread' | 'source' | 'kind' | 'sort'> {
  return {
    tab: oneOf(f.tab ?? null, STAGE_TABS, 'pending'),
    q: (f.q ?? '').trim(),
    engine: (f.engine ?? '').trim(),
    agent: (f.agent ?? '').trim(),
    tool: (f.tool ?? '').trim(),
    thread: (f.thread ?? '').trim(),
    source: f.source ?? '',
    kind: f.kind ?? '',
    sort: f.sort ?? 'newest',
  };
}

/** Whether two routes show the queue's list the same way (tab, filters, order, search). */
export function sameList(a: Route, b: Route): boolean {
  return (
    a.tab === b.tab &&
    a.q === b.q &&
    TEXT_FILTERS.every((f) => a[f] === b[f]) &&
    a.source === b.source &&
    a.kind === b.kind &&
    a.sort === b.sort
  );
}

/**
 * How the address follows a change of place: `push` makes a new history entry (Back returns), `replace`
 * rewrites the current one, `null` when the address stays. A new entry is made for another view,
 * stage tab, filter, order or view parameter, and on a phone for opening a call from the list (its
 * own screen); the search as it is typed, moving from call to call and closing a call rewrite it.
 */
export function routeChange(from: Route, to: Route, phone: boolean): 'push' | 'replace' | null {
  if (formatRoute(from) === formatRoute(to)) return null;
  if (from.view !== to.view) return 'push';
  if (to.view !== 'queue') return formatParams(from) === formatParams(to) ? 'replace' : 'push';
  // The search is typed letter by letter: it rewrites the entry.
  if (!sameList({ ...from, q: '' }, { ...to, q: '' })) return 'push';
  if (phone && from.call === null && to.call !== null) return 'push';
  return 'replace';
}

/** A view's parameters as a link spells them. */
function formatParams(r: Route): string {
  return formatRoute({ ...HOME, view: 'audit', params: r.params });
}
