/**
 * The console's triage, apart from its markup (`Console.svelte`): the view shown, the call shown
 * beside the queue (and what happens to it when it changes, is decided, or is asked for by the
 * desktop app), and what the keyboard shortcuts do (`keys.ts` says which action a key asks for,
 * `triage.ts` which call comes next). The list and the detail are reached through the few
 * functions they export, bound by the page (`list`, `detail`).
 */
import { tick } from 'svelte';
import type { Access, OperationName } from './access.svelte';
import { ApiError, type Backend, type QueueItem } from './backend/backend';
import type { Banners } from './banners.svelte';
import { DEFAULT_WARN_BEFORE_SECS } from './expiry';
import { i18n } from './i18n/index.svelte';
import { keyAction } from './keys';
import type { QueueModel } from './queue.svelte';
import type { BatchFailure } from './run-batch';
import { moveSelection, nextAfterDecision } from './triage';

export type ConsoleTab = 'queue' | 'audit' | 'team' | 'grants' | 'engines' | 'settings';
export const CONSOLE_TABS: ConsoleTab[] = ['queue', 'audit', 'team', 'grants', 'engines', 'settings'];

/**
 * What each view reads as it opens: a view is offered to a credential offered all of them (a paired
 * device gets no figures, grants or engines). Settings is offered to all: it shows only the parts
 * whose reads are offered (to a paired device, this browser's appearance).
 */
export const TAB_READS: Record<ConsoleTab, readonly OperationName[]> = {
  queue: ['queue_page', 'queue_counts', 'queue_item', 'events'],
  audit: ['audit_page', 'decision_history', 'verify_audit'],
  team: ['stats', 'reach_stats'],
  grants: ['grants', 'shadow_report'],
  engines: ['engines'],
  settings: [],
};

/** What the console asks of the queue list (`QueueList.svelte`). */
export type ListFocus = {
  focusSelected(): boolean;
  focusSearch(): void;
};

export type DecisionAction = 'approve' | 'edit' | 'decline' | 'resume';

/** What the console asks of the detail (`Detail.svelte`): each answers whether it applied. */
export type DetailControls = {
  refusal(action: DecisionAction): 'decided' | 'suspend' | 'approval' | 'notAllowed' | 'blocked' | 'approveBlocked' | null;
  requestApprove(): boolean;
  openEditor(): boolean;
  focusDecline(): boolean;
  focusResume(): boolean;
  backOut(): boolean;
  focusDetail(): void;
};

export class ConsoleModel {
  tab = $state<ConsoleTab>('queue');
  selected = $state.raw<QueueItem | null>(null);
  selectedGone = $state(false);
  /** The selected call is open: on a phone the detail is the screen shown (the list is, once the operator went back). */
  detailOpen = $state(false);
  /** A call asked for by id (a link, the desktop app) whose answer is on its way. */
  opening = $state<string | null>(null);
  /** Why the desktop app asked to show a call (e.g. its Approve was refused from a notification). */
  openNotice = $state.raw<{ item: string | null; reason: string } | null>(null);
  /** What the last keyboard action or decision did, for screen readers and the eye (a polite live region); in words when shown. */
  note = $state.raw<(() => string) | null>(null);
  noteText = $derived(this.note ? this.note() : '');
  helpOpen = $state(false);
  /**
   * A shortcut did not apply: the shortcuts are paused until Esc (or a click), so that what the
   * operator types next, believing it goes into a field, neither moves, nor opens a field, nor decides.
   */
  keysPaused = $state(false);
  /** High-risk tools from the notification settings (read on showing the queue); `null` while unknown: every approval asks to confirm. */
  highRiskTools = $state.raw<string[] | null>(null);
  /** The time limits' warn window (read with the high-risk list); the server's default until then. */
  warnBeforeSecs = $state(DEFAULT_WARN_BEFORE_SECS);

  /** Bound by the page. */
  list = $state<ListFocus>();
  detail = $state<DetailControls>();

  /** Counts requests to show a call; a later one (or the operator's own click) wins over an answer still on its way. */
  private openGen = 0;
  /** Where the focus was when the help opened. */
  private focusBeforeHelp: Element | null = null;
  /** The list as last shown with the selected call in it: where "below the decided call" is. */
  private shownWithSelected: readonly QueueItem[] = [];

  constructor(
    private readonly backend: Backend,
    private readonly queue: QueueModel,
    private readonly banners: Banners,
    private readonly access: Access,
  ) {}

  /** The views offered to this credential (`TAB_READS`), in the order of the header's tabs. */
  get tabs(): ConsoleTab[] {
    return CONSOLE_TABS.filter((tab) => TAB_READS[tab].every((op) => this.access.offers(op)));
  }

  /** A fresh copy of the selected call arrived from the server (event or reload). */
  showFresh(item: QueueItem): void {
    const selected = this.selected;
    if (!selected || selected.id !== item.id) return;
    if (item.fingerprint !== selected.fingerprint && item.state === 'pending') {
      // What is on screen changes under the operator's eyes: say so.
      this.banners.push(new ApiError('args_changed', i18n.m.queue.fingerprintChanged(selected.fingerprint, item.fingerprint)), item.id);
    }
    this.selected = item;
    this.selectedGone = false;
  }

  /** The server no longer has this call. */
  removed(id: string): void {
    if (this.selected?.id === id) this.selectedGone = true;
  }

  select = (id: string): void => {
    const item = this.queue.items.find((i) => i.id === id);
    if (!item) return;
    this.note = null;
    this.openGen++;
    this.opening = null;
    if (this.openNotice && this.openNotice.item !== id) this.openNotice = null;
    this.banners.opened(id);
    this.selected = item;
    this.selectedGone = false;
    this.detailOpen = true;
  };

  /** Back from the call to the list (a phone's screens); the call stays selected in the list. */
  closeDetail = (): void => {
    this.detailOpen = false;
    // A call still on its way from a link is not opened after all.
    this.openGen++;
    this.opening = null;
  };

  /**
   * A new call came: if the detail shows one that no longer waits (decided, expired, gone), the new
   * one takes its place, so an old call is not left where the next decision is made. A call still
   * waiting, or nothing open, is left as it is.
   */
  arrived = (id: string): void => {
    const sel = this.selected;
    if (!sel || (sel.state === 'pending' && !this.selectedGone)) return;
    if (!this.queue.items.some((i) => i.id === id && i.state === 'pending')) return;
    // A phone back on the list stays there: the new call is selected, not opened over it.
    const open = this.detailOpen;
    this.select(id);
    this.detailOpen = open;
  };

  /** The list now shows another view (a tab): a call open from the last one that is not in it is closed. */
  viewChanged = (shown: readonly QueueItem[]): void => {
    const sel = this.selected;
    if (!sel || shown.some((i) => i.id === sel.id)) return;
    this.openGen++;
    this.opening = null;
    this.note = null;
    this.banners.opened(null);
    this.selected = null;
    this.selectedGone = false;
    this.detailOpen = false;
  };

  /**
   * The desktop app asks to show a call (a notification was clicked, or an action on it refused):
   * fetch it fresh, since it may have changed, and show it whether or not the list holds it.
   */
  async openRequested(id: string | null, reason: string | null): Promise<void> {
    this.tab = 'queue';
    this.openNotice = reason ? { item: id, reason } : null;
    const gen = ++this.openGen;
    this.opening = id;
    if (!id) return;
    try {
      const item = await this.backend.getItem(id);
      if (gen !== this.openGen) return;
      this.queue.upsert(item);
      if (this.selected?.id === item.id) this.showFresh(item);
      else {
        this.banners.opened(item.id);
        this.selected = item;
        this.selectedGone = false;
      }
      this.detailOpen = true;
    } catch (e) {
      if (gen !== this.openGen) return;
      const err = ApiError.from(e);
      this.banners.push(err);
      if (err.code === 'not_found') {
        this.queue.remove(id);
        this.removed(id);
      }
    } finally {
      if (gen === this.openGen) this.opening = null;
    }
  }

  /** Shows another call from the detail (the entry that ran an interrupted call again), fetched fresh. */
  open = (id: string): void => {
    void this.openRequested(id, null);
  };

  dismissOpenNotice = (): void => {
    this.openNotice = null;
    this.focusTab();
  };

  /** Gives the focus to the current view's tab (a banner's button went away with it). */
  focusTab(): void {
    document.getElementById(`tab-${this.tab}`)?.focus();
  }

  async reloadItem(id: string, quiet = false): Promise<void> {
    try {
      const item = await this.backend.getItem(id);
      this.queue.upsert(item);
      if (this.selected?.id === id) {
        this.selected = item;
        this.selectedGone = false;
      }
    } catch (e) {
      const err = ApiError.from(e);
      if (err.code === 'not_found') {
        this.queue.remove(id);
        this.removed(id);
      } else if (!quiet) this.banners.push(err);
    }
  }

  /** After the event stream (re)opened, or a resync: the selected call may have changed meanwhile. */
  reloadSelected(): void {
    if (this.selected) void this.reloadItem(this.selected.id, true);
  }

  /**
   * A decision the server accepted. The next call still waiting is shown (the list as it was on
   * screen decides which), so a queue can be cleared from the keyboard; with none left, the decided
   * call stays, with its result.
   */
  decided = (item: QueueItem): void => {
    // Below the decided call as the list showed it, even if the call left the list meanwhile (its
    // event may come back before the decision's answer does).
    const next = this.selected?.id === item.id ? nextAfterDecision(this.shownWithSelected, item.id, this.queue.shown) : null;
    this.queue.upsert(item);
    if (this.selected?.id !== item.id) return;
    if (!next) {
      this.selected = item;
      return;
    }
    const kind = item.decision?.kind ?? 'approve';
    this.select(next);
    this.note = () => i18n.m.queue.decidedNext(kind, item.toolName);
    // The control that decided went away with the call: carry on from the list, unless the operator
    // went somewhere else meanwhile (the search box, another call's details).
    void tick().then(() => {
      const at = document.activeElement;
      if (!at || at === document.body || at.closest('[role="listbox"]')) this.list?.focusSelected();
    });
  };

  decisionFailed = (err: ApiError, shown: QueueItem): void => {
    this.banners.push(err, shown.id);
    switch (err.code) {
      case 'fingerprint_mismatch':
      case 'already_decided':
      case 'decision_not_allowed':
      case 'missing_arguments':
      case 'ambiguous_arguments':
      // The two-person rule: the call as it stands now (who approved it so far).
      case 'already_approved':
      case 'own_run':
        void this.reloadItem(shown.id);
        break;
      case 'not_found':
        this.queue.remove(shown.id);
        this.removed(shown.id);
        break;
    }
  };

  /** A call decided by a run's "approve all / decline all". */
  batchDecided = (item: QueueItem): void => {
    this.queue.upsert(item);
    if (this.selected?.id === item.id) {
      this.selected = item;
      this.selectedGone = false;
    }
  };

  /** A call of such a batch was refused: the list shows why; bring the call up to date, like a refused single decision. */
  batchFailed = (r: BatchFailure): void => {
    if (!r.id) {
      this.banners.push(r.error);
      return;
    }
    if (['fingerprint_mismatch', 'already_decided', 'decision_not_allowed'].includes(r.error.code)) void this.reloadItem(r.id, true);
    else if (r.error.code === 'not_found') {
      this.queue.remove(r.id);
      this.removed(r.id);
    }
  };

  /** A call changed by the operator without a decision (a snooze, a resolution), or the new entry that ran an interrupted call again. */
  updated = (item: QueueItem): void => {
    this.queue.upsert(item);
    if (this.selected?.id === item.id) this.selected = item;
  };

  /** The operator backed out of the confirm step. */
  cancelled = (): void => {
    this.note = () => i18n.m.queue.keys.cancelled;
  };

  /** Keeps the list as shown while it holds the selected call (run before each update of the page). */
  rememberShown(): void {
    const list = this.queue.shown;
    const id = this.selected?.id;
    if (id !== undefined && list.some((i) => i.id === id)) this.shownWithSelected = list;
  }

  /** Reads the high-risk tools from the notification settings (not to a credential they are refused to: every approval then asks to confirm). */
  async loadHighRisk(): Promise<void> {
    if (!this.access.offers('notification_settings')) return;
    try {
      this.highRiskTools = (await this.backend.notificationSettings()).highRiskTools ?? [];
    } catch {
      // keep what was known; the settings view shows why it cannot load them
    }
  }

  /** Reads the time limits' warn window (not to a credential they are refused to: the server's default stays). */
  async loadExpiry(): Promise<void> {
    if (!this.access.offers('expiry_settings')) return;
    try {
      this.warnBeforeSecs = (await this.backend.expirySettings()).warnBeforeSecs ?? DEFAULT_WARN_BEFORE_SECS;
    } catch {
      // keep the default; the settings view shows why it cannot load them
    }
  }

  openHelp = (): void => {
    this.focusBeforeHelp = document.activeElement;
    this.helpOpen = true;
  };

  closeHelp = (): void => {
    this.helpOpen = false;
    const back = this.focusBeforeHelp;
    this.focusBeforeHelp = null;
    // Once the dialog is gone: while a modal dialog is open, the rest of the page cannot take the focus.
    void tick().then(() => {
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    });
  };

  private async moveTo(move: 'next' | 'prev' | 'first' | 'last'): Promise<void> {
    const id = moveSelection(this.queue.shown, this.selected?.id ?? null, move);
    if (!id) return;
    if (id !== this.selected?.id) this.select(id);
    await tick();
    this.list?.focusSelected();
  }

  onKey = (e: KeyboardEvent): void => {
    const action = keyAction(e);
    if (!action) return;
    if (this.helpOpen) {
      // The help is modal: only its own keys.
      if (action === 'help' || action === 'escape') {
        e.preventDefault();
        this.closeHelp();
      }
      return;
    }
    // The help stays at hand (it decides nothing, and says what the pause is).
    if (this.keysPaused && action !== 'escape' && action !== 'help') {
      e.preventDefault();
      this.note = () => i18n.m.queue.keys.pausedStill;
      return;
    }
    if (action === 'help') {
      e.preventDefault();
      this.openHelp();
      return;
    }
    if (action === 'search') {
      e.preventDefault(); // or the `/` would be typed into the box
      this.tab = 'queue';
      void tick().then(() => this.list?.focusSearch());
      return;
    }
    const target = e.target instanceof Element ? e.target : null;
    if (action === 'escape') {
      const wasPaused = this.keysPaused;
      this.keysPaused = false;
      // Whatever decision was started is backed out of, with nothing sent (a confirmation, a reason,
      // an answer, an edit), and the focus goes back to the list.
      const backedOut = this.tab === 'queue' && (this.detail?.backOut() ?? false);
      if (backedOut || (this.tab === 'queue' && target?.closest('#panel-queue') && !target.closest('[role="listbox"]'))) {
        e.preventDefault();
        void tick().then(() => this.list?.focusSelected());
      }
      if (backedOut) this.note = () => i18n.m.queue.keys.cancelled;
      else if (wasPaused) this.note = () => i18n.m.queue.keys.back;
      return;
    }
    if (this.tab !== 'queue') return;
    e.preventDefault(); // `d` and `r` move the focus into a field: the letter must not land there
    switch (action) {
      case 'next':
      case 'prev':
      case 'first':
      case 'last':
        void this.moveTo(action);
        return;
      case 'open': {
        const focused = (target?.closest('[role="option"]') as HTMLElement | null)?.dataset.id;
        if (focused && focused !== this.selected?.id) this.select(focused);
        if (!this.selected) {
          void this.moveTo('first');
          return;
        }
        void tick().then(() => this.detail?.focusDetail());
        return;
      }
      case 'approve':
      case 'edit':
      case 'decline':
      case 'resume':
        this.decisionKey(action, e.key);
        return;
    }
  };

  /** `a`, `e`, `d`, `r`: start that decision on the call shown, or say why it does not apply (and pause the keys). */
  private decisionKey(action: DecisionAction, key: string): void {
    const d = this.selected ? this.detail : undefined;
    if (!d) return this.refuse(() => i18n.m.queue.keys.selectFirst(key));
    const why = d.refusal(action);
    const started =
      why === null &&
      (action === 'approve' ? d.requestApprove() : action === 'edit' ? d.openEditor() : action === 'decline' ? d.focusDecline() : d.focusResume());
    if (started) {
      this.note = null;
      return;
    }
    this.refuse(() => {
      const k = i18n.m.queue.keys;
      switch (why) {
        case 'decided':
          return k.decided(key);
        case 'blocked':
          return k.blocked(key);
        case 'approveBlocked': {
          const code = this.selected?.approveBlocked?.code;
          return code === 'missing_arguments' ? k.approveMissing : code === 'ambiguous_arguments' ? k.approveAmbiguous : k.approveBlockedOther;
        }
        case 'suspend':
          return action === 'edit' ? k.editSuspend : k.approveSuspend;
        case 'approval':
          return k.resumeApproval;
        default:
          return action === 'approve' ? k.approveNot : action === 'edit' ? k.editNot : action === 'decline' ? k.declineNot : k.resumeApproval;
      }
    });
  }

  private refuse(why: () => string): void {
    this.keysPaused = true;
    this.note = () => i18n.m.queue.keys.paused(why());
  }

  /** A click is deliberate: it ends a pause of the keys. */
  onPointer = (): void => {
    if (!this.keysPaused) return;
    this.keysPaused = false;
    this.note = null;
  };

  /** The arrows, Home and End move between the views' tabs. */
  onTabKey = (e: KeyboardEvent): void => {
    const tabs = this.tabs;
    const i = tabs.indexOf(this.tab);
    let next: ConsoleTab | null = null;
    if (e.key === 'ArrowRight') next = tabs[(i + 1) % tabs.length];
    else if (e.key === 'ArrowLeft') next = tabs[(i + tabs.length - 1) % tabs.length];
    else if (e.key === 'Home') next = tabs[0];
    else if (e.key === 'End') next = tabs[tabs.length - 1];
    if (next) {
      this.tab = next;
      this.focusTab();
      e.preventDefault();
    }
  };
}
