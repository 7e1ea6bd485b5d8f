import { describe, expect, it } from 'vitest';
import { formatRoute, HOME, MAX_VALUE, parseRoute, queueFilterOf, routeChange, routeOfFilter, type Route } from './route';
import { Router } from './route.svelte';

const at = (r: Partial<Route>): Route => ({ ...HOME, ...r });

/** A history of entries, as a browser keeps it (enough for the router: push, replace, back). */
function fakeWindow(hash = '') {
  const entries: { url: string; state: unknown }[] = [{ url: `/${hash}`, state: null }];
  let i = 0;
  const listeners = new Map<string, Set<() => void>>();
  const location = {
    get hash() {
      const u = entries[i].url;
      const at = u.indexOf('#');
      return at === -1 ? '' : u.slice(at);
    },
    pathname: '/',
    search: '',
  };
  const fire = (type: string) => listeners.get(type)?.forEach((f) => f());
  const history = {
    get state() {
      return entries[i].state;
    },
    pushState(state: unknown, _t: string, url: string) {
      entries.splice(i + 1);
      entries.push({ url, state });
      i++;
    },
    replaceState(state: unknown, _t: string, url: string) {
      entries[i] = { url, state };
    },
    back() {
      if (i === 0) return;
      const before = location.hash;
      i--;
      fire('popstate');
      if (location.hash !== before) fire('hashchange');
    },
  };
  const events = {
    addEventListener: (type: string, f: () => void) => {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)!.add(f);
    },
    removeEventListener: (type: string, f: () => void) => listeners.get(type)?.delete(f),
  };
  /** Types a fragment into the address bar (a new entry, both events). */
  const visit = (fragment: string) => {
    entries.splice(i + 1);
    entries.push({ url: `/${fragment}`, state: null });
    i++;
    fire('popstate');
    fire('hashchange');
  };
  return { location, history, events, entries, visit, index: () => i };
}

describe('route', () => {
  it('writes a view, a stage tab, filters, order, search and a call as a fragment, and reads back the same place', () => {
    const places: Route[] = [
      at({ view: 'audit' }),
      at({ view: 'settings', params: { section: 'channels' } }),
      at({ tab: 'decided', q: 'rm -rf & "quotes" #hash', source: 'mcp', kind: 'suspend', sort: 'oldest' }),
      at({ engine: 'local', agent: 'ops bot', tool: 'run_sql', thread: 'th/1' }),
      at({ tab: 'all', call: 'q_1' }),
      at({ view: 'engines', tab: 'expired', tool: 'Bash' }),
    ];
    for (const r of places) {
      const hash = formatRoute(r);
      expect(hash.startsWith('#'), hash).toBe(true);
      expect(parseRoute(hash)).toEqual(r);
    }
    expect(formatRoute(at({ view: 'audit', tab: 'decided' }))).toBe('#view=audit&tab=decided');
  });

  it('gives the default place no fragment, and reads a channel\'s #call=ID link as that call in the queue', () => {
    expect(formatRoute(HOME)).toBe('');
    expect(parseRoute('')).toEqual(HOME);
    expect(parseRoute('#')).toEqual(HOME);
    expect(parseRoute('#call=q_abc')).toEqual(at({ call: 'q_abc' }));
    expect(formatRoute(at({ call: 'q_abc' }))).toBe('#call=q_abc');
  });

  it('drops what a link may not name: unknown views, tabs, sources, kinds and orders, a call outside the queue, control characters, overlong values, and the token or pairing code as a view parameter', () => {
    expect(parseRoute('#view=admin&tab=secret&source=ftp&kind=delete&sort=random')).toEqual(HOME);
    expect(parseRoute('#view=audit&call=q_1').call).toBeNull();
    expect(parseRoute('#q=a%00b%1Bc%7F').q).toBe('abc');
    expect(parseRoute(`#q=${'x'.repeat(MAX_VALUE + 1)}`).q).toBe('');
    expect(parseRoute(`#q=${'x'.repeat(MAX_VALUE)}`).q).toBe('x'.repeat(MAX_VALUE));
    expect(parseRoute('#call=%20%20').call).toBeNull();
    const settings = parseRoute('#view=settings&token=abc&pair=123&pin=9&section=tokens&Bad=1&x%3Cy=2&approve=now');
    expect(settings.params).toEqual({ section: 'tokens', approve: 'now' });
    expect(formatRoute(at({ view: 'settings', params: { token: 'abc', section: 'tokens' } }))).toBe('#view=settings&section=tokens');
    // A view parameter is never more than a parameter: the queue takes none.
    expect(parseRoute('#section=tokens').params).toEqual({});
    const many = Array.from({ length: 40 }, (_, i) => `p${i}=v`).join('&');
    expect(Object.keys(parseRoute(`#view=audit&${many}`).params)).toHaveLength(16);
  });

  it('turns the list\'s filters into the route and back, the search trimmed and an empty one left out', () => {
    const r = at({ tab: 'decided', q: 'delete', engine: 'e', agent: 'a', tool: 't', thread: 'th', source: 'http', kind: 'approval', sort: 'oldest' });
    expect({ ...HOME, ...routeOfFilter(queueFilterOf(r)) }).toEqual(r);
    expect(queueFilterOf(HOME).q).toBeUndefined();
    expect(routeOfFilter({ tab: 'pending', q: '  x  ', tool: ' t ' })).toMatchObject({ q: 'x', tool: 't' });
  });

  it('makes a history entry for another view, tab, filter, order or view parameter, and on a phone for opening a call; typing a search and moving between calls rewrite the entry', () => {
    expect(routeChange(HOME, HOME, false)).toBeNull();
    expect(routeChange(HOME, at({ view: 'audit' }), false)).toBe('push');
    expect(routeChange(HOME, at({ tab: 'decided' }), false)).toBe('push');
    expect(routeChange(HOME, at({ source: 'mcp' }), false)).toBe('push');
    expect(routeChange(HOME, at({ sort: 'oldest' }), false)).toBe('push');
    expect(routeChange(at({ view: 'settings' }), at({ view: 'settings', params: { section: 'a' } }), false)).toBe('push');
    expect(routeChange(HOME, at({ q: 'd' }), false)).toBe('replace');
    expect(routeChange(at({ q: 'd' }), at({ q: 'de' }), true)).toBe('replace');
    expect(routeChange(HOME, at({ call: 'a' }), false)).toBe('replace');
    expect(routeChange(HOME, at({ call: 'a' }), true)).toBe('push');
    expect(routeChange(at({ call: 'a' }), at({ call: 'b' }), true)).toBe('replace');
    expect(routeChange(at({ call: 'a' }), HOME, true)).toBe('replace');
  });
});

describe('Router', () => {
  it('reads the place at start and writes each move as a new entry or over the current one, never firing its own events', () => {
    const w = fakeWindow('#view=audit');
    const router = new Router(w.location, w.history);
    expect(router.route).toEqual(at({ view: 'audit' }));
    const heard: Route[] = [];
    router.listen(w.events as never, (r) => heard.push(r));
    router.go(HOME);
    router.go(at({ q: 'x' }));
    router.go(at({ q: 'x', call: 'a' }));
    expect(w.entries.map((e) => e.url)).toEqual(['/#view=audit', '/#q=x&call=a']);
    router.go(at({ q: 'x', call: 'a' }));
    expect(w.entries).toHaveLength(2);
    expect(heard).toEqual([]);
    // A rewrite to no place at all leaves the bare address.
    router.replace(HOME);
    expect(w.entries.at(-1)!.url).toBe('/');
  });

  it('follows Back, Forward and an address typed in, once per change', () => {
    const w = fakeWindow();
    const router = new Router(w.location, w.history);
    const heard: Route[] = [];
    const stop = router.listen(w.events as never, (r) => heard.push(r));
    router.go(at({ view: 'grants' }));
    w.history.back();
    expect(heard).toEqual([HOME]);
    expect(router.route).toEqual(HOME);
    w.visit('#tab=gone&call=q_9');
    expect(heard.at(-1)).toEqual(at({ tab: 'gone', call: 'q_9' }));
    expect(heard).toHaveLength(2);
    stop();
    w.visit('#view=audit');
    expect(heard).toHaveLength(2);
  });

  it("on a phone, a call opened from the list is an entry of its own whose way back is the browser's Back; a call reached otherwise closes in place", () => {
    const w = fakeWindow();
    const router = new Router(w.location, w.history, () => true);
    const heard: Route[] = [];
    router.listen(w.events as never, (r) => heard.push(r));
    router.go(at({ call: 'a' }));
    expect(w.entries).toHaveLength(2);
    // The next call after a decision: the same entry, still the list's.
    router.go(at({ call: 'b' }));
    expect(w.entries).toHaveLength(2);
    expect(router.backToList()).toBe(true);
    expect(w.index()).toBe(0);
    expect(heard).toEqual([HOME]);
    // A link's call (the first entry): nothing to go back to.
    const linked = fakeWindow('#call=a');
    const r2 = new Router(linked.location, linked.history, () => true);
    expect(r2.backToList()).toBe(false);
    // Closing it rewrites the entry, and drops the mark an entry opened from the list carried.
    router.go(at({ call: 'c' }));
    expect(w.history.state).not.toBeNull();
    router.go(HOME);
    expect(w.history.state).toBeNull();
    expect(router.backToList()).toBe(false);
  });

  it('on a wide screen opening a call rewrites the entry (the list and the call are on one screen)', () => {
    const w = fakeWindow();
    const router = new Router(w.location, w.history, () => false);
    router.go(at({ call: 'a' }));
    expect(w.entries).toHaveLength(1);
    expect(router.backToList()).toBe(false);
  });
});
