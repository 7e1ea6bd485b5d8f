/**
 * The page's address as the console's place (`route.ts` says what a fragment means): read at start,
 * written as the operator moves (a new history entry or the current one rewritten, `routeChange`),
 * and followed when it changes by itself — Back and Forward, an edited address, a link opened in
 * this tab. Writing never fires `hashchange` (`history.pushState`/`replaceState`), so only changes
 * from outside are reported. The browser window and the desktop window alike: both keep a
 * fragment across a reload.
 */
import { formatRoute, parseRoute, routeChange, sameList, type Route } from './route';

type Loc = Pick<Location, 'hash' | 'pathname' | 'search'>;
type Hist = Pick<History, 'pushState' | 'replaceState' | 'back' | 'state'>;
type Events = Pick<Window, 'addEventListener' | 'removeEventListener'>;

/** Marks, in `history.state`, an entry made by opening a call from the list (its Back is the browser's). */
const FROM_LIST = 'approvalConsoleFromList';

export class Router {
  /** The place the address names now. */
  route = $state.raw<Route>(parseRoute(''));

  constructor(
    private readonly location: Loc,
    private readonly history: Hist,
    /** Whether the page has a phone's layout now (one screen at a time): opening a call is then an entry of its own. */
    private readonly phone: () => boolean = () => false,
  ) {
    this.route = parseRoute(location.hash);
  }

  /** The page's own address, in a phone's layout below 600 px. */
  static forPage(win: Window & typeof globalThis = window): Router {
    const narrow = typeof win.matchMedia === 'function' ? win.matchMedia(PHONE_QUERY) : null;
    return new Router(win.location, win.history, () => narrow?.matches ?? false);
  }

  /**
   * Follows the address when it changes from outside (`popstate`, `hashchange`: Back, Forward, a
   * link): `onchange` gets the new place, once per change. Returns a function that stops it.
   */
  listen(target: Events, onchange: (route: Route) => void): () => void {
    const changed = () => {
      const next = parseRoute(this.location.hash);
      if (formatRoute(next) === formatRoute(this.route)) return;
      this.route = next;
      onchange(next);
    };
    target.addEventListener('popstate', changed);
    target.addEventListener('hashchange', changed);
    return () => {
      target.removeEventListener('popstate', changed);
      target.removeEventListener('hashchange', changed);
    };
  }

  /** Moves the address to `to`: a new entry or the current one rewritten (`routeChange`); nothing when it is already there. */
  go(to: Route): void {
    this.write(to, routeChange(this.route, to, this.phone()));
  }

  /** Rewrites the current entry to `to` (a place the console could not show as the address named it: a view not offered). */
  replace(to: Route): void {
    this.write(to, routeChange(this.route, to, false) && 'replace');
  }

  private write(to: Route, how: 'push' | 'replace' | null): void {
    if (how === null) {
      this.route = to;
      return;
    }
    const url = this.location.pathname + this.location.search + formatRoute(to);
    if (how === 'push') {
      const from = this.route;
      const fromList = from.view === 'queue' && to.view === 'queue' && from.call === null && to.call !== null && sameList(from, to);
      this.history.pushState(fromList ? { [FROM_LIST]: true } : null, '', url);
    } else {
      // Rewriting keeps the entry's mark, unless the entry no longer shows a call.
      const state = to.call === null ? withoutMark(this.history.state) : this.history.state;
      this.history.replaceState(state, '', url);
    }
    this.route = to;
  }

  /**
   * Back from a call to the list: the browser's Back when this entry was made by opening the call
   * from the list (so the history holds no stale entry), and `false` otherwise (the caller closes the
   * call, and the address is rewritten).
   */
  backToList(): boolean {
    const state: unknown = this.history.state;
    if (this.route.call === null || !isMarked(state)) return false;
    this.history.back();
    return true;
  }
}

/** The layout of a phone: the list and a call are screens of their own (the same width as app.css). */
export const PHONE_QUERY = '(max-width: 600px)';

function isMarked(state: unknown): boolean {
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>)[FROM_LIST] === true;
}

function withoutMark(state: unknown): unknown {
  if (!isMarked(state)) return state;
  const { [FROM_LIST]: _, ...rest } = state as Record<string, unknown>;
  return Object.keys(rest).length === 0 ? null : rest;
}
