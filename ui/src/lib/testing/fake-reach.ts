/**
 * The reach part of `FakeBackend` (issue 28): the channels, escalation rules and on-call shifts
 * (checked like the server's `ReachSettings::check` and its check of the channels' secrets), the
 * channels' secrets (set by the local admin only), claims ("I'm on it"), a call's messages, and the
 * time-to-decision figures.
 */
import {
  ApiError,
  type CallClaim,
  type CallReach,
  type ChannelKind,
  type ReachMessage,
  type ReachSettings,
  type ReachStats,
  type SecretPlace,
} from '../backend/backend';
import { wire } from './fake-queue';
import { FakeSetup } from './fake-setup';

/** The server's names (`valid_credential_name`): 1–64 letters, digits, '.', '_', '-', starting with a letter or digit. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
/** How Rust's `{:?}` writes a channel's kind. */
const KIND_DEBUG = { webhook: 'Webhook', slack: 'Slack', email: 'Email', matrix: 'Matrix' } as const;
/** What a channel's secret is, for a kind that needs one (`ChannelKind::secret_needed`). */
const SECRET_NEEDED: Record<ChannelKind, string | null> = {
  webhook: 'a secret to sign with',
  slack: 'its webhook URL as a secret',
  matrix: 'its access token as a secret',
  email: null,
};
const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]):\d{1,5}$/i;

/** No figures: what `reachStats` answers unless a test sets `reachFigures`. */
export function emptyReachStats(days = 7): ReachStats {
  return { days, byChannel: [], byPerson: [], byRule: [], byDay: [] };
}

/** A message of a call to a channel, as `callReach` lists it: alice's webhook, sent. */
export function makeReachMessage(over: Partial<ReachMessage> = {}): ReachMessage {
  return {
    id: 'm1',
    queueItemId: 'q1',
    channel: 'alice-hook',
    person: 'alice',
    rule: 'default',
    step: 0,
    dueAt: '2025-01-01T10:00:00Z',
    state: 'sent',
    attempts: 1,
    lastError: null,
    sentAt: '2025-01-01T10:00:02Z',
    ...over,
  };
}

/**
 * Refuses what cannot work, with the server's words (`domain::reach::ReachSettings::check`, then
 * `App::check_channel_secrets` against `secrets`: where each channel's secret is kept).
 */
export function checkReach(s: ReachSettings, secrets: Record<string, SecretPlace> = {}): void {
  const refuse = (message: string) => {
    throw new ApiError('invalid_request', message, null, 400);
  };
  const q = (text: string) => JSON.stringify(text);
  const names = new Set<string>();
  for (const c of s.channels ?? []) {
    if (!NAME.test(c.name) || names.has(c.name)) refuse(`channel name ${q(c.name)}: 1–64 letters, digits, '.', '_' or '-', each channel its own`);
    names.add(c.name);
    if (!NAME.test(c.person)) refuse(`channel ${c.name}: ${q(c.person)} is not a person's name`);
    const target = c.target ?? '';
    const needs = (what: string, ok: boolean) => {
      if (!ok) refuse(`channel ${c.name} (${KIND_DEBUG[c.kind]}) needs ${what}`);
    };
    if (c.kind === 'webhook') needs('an http(s) target URL', /^https?:\/\//.test(target));
    if (c.kind === 'email') needs('a target address and a server host:port', target.includes('@') && (c.server ?? '').includes(':'));
    if (c.kind === 'matrix') needs('a room id (!room:server) and the homeserver URL', target.startsWith('!') && c.server != null);
    if (c.kind === 'email' && c.tls === 'none' && !LOOPBACK.test(c.server ?? '')) {
      refuse(`channel ${c.name}: plain SMTP (tls none) goes only to a relay on this machine (localhost, 127.0.0.1 or ::1), not to ${q(c.server ?? '')}: use starttls or tls`);
    }
    const quiet = c.quietHours;
    if (quiet && (!TIME.test(quiet.from) || !TIME.test(quiet.to))) refuse(`channel ${c.name}: quiet hours are HH:MM (UTC)`);
  }
  for (const r of s.rules ?? []) {
    if (!NAME.test(r.name) || r.name === 'default') refuse(`rule name ${q(r.name)}: a plain word other than "default"`);
    if (r.steps.length === 0) refuse(`rule ${r.name} has no step`);
    if (r.steps.some((st) => st.notify.length === 0 || st.afterSecs > 7 * 86_400)) refuse(`rule ${r.name}: each step tells someone, within a week`);
  }
  for (const sh of s.onCall ?? []) {
    if (!TIME.test(sh.from) || !TIME.test(sh.to) || (sh.days ?? []).some((d) => d > 6) || !NAME.test(sh.person)) {
      refuse(`on-call shift of ${q(sh.person)}: a person, days 0–6, HH:MM times`);
    }
  }
  for (const c of s.channels ?? []) {
    const what = SECRET_NEEDED[c.kind];
    if (what && !secrets[c.name]) {
      refuse(
        `channel ${c.name} (${KIND_DEBUG[c.kind]}) needs ${what}, and none is set: the local admin sets it (\`approval-console channels secret set ${c.name}\`, or Settings → Channels in the desktop app)`,
      );
    }
  }
}

export class FakeReach extends FakeSetup {
  /** The stored `reach` settings; reads and writes go through JSON, like the wire. */
  reach: ReachSettings = { channels: [], rules: [], onCall: [] };
  /** Where each channel's secret is kept, by channel name (the values are never kept here). */
  channelSecretsKept: Record<string, SecretPlace> = {};
  /** When set, `reachSettings` fails with it (every time, until cleared). */
  failReachLoad: ApiError | null = null;
  /** Who claimed each call. */
  claims = new Map<string, CallClaim>();
  /** Each call's messages, in order. */
  reachMessages = new Map<string, ReachMessage[]>();
  /** The ids `callReach` was asked for (a read an open detail sends on its own: kept apart from `calls`). */
  reachAsked: string[] = [];
  /** When set, the next `claimCall` fails with it. */
  failClaim: ApiError | null = null;
  /** When set, `callReach` fails with it (every time, until cleared). */
  failCallReach: ApiError | null = null;
  /** When the next claim is made (the server's clock). */
  claimAt = '2025-01-01T10:32:00Z';
  /** What a test message on each channel answers, by name (unset: sent, if the channel is stored). */
  channelTests: Record<string, { sent: boolean; error: string | null }> = {};
  /** What the next save of the reach settings warns of (the server's sentences). */
  reachWarnings: string[] = [];
  /** What `reachStats` answers: no figures unless set (a function of `days`, or the same for any period). */
  reachFigures: ReachStats | ((days: number) => ReachStats) | null = null;

  async reachSettings() {
    this.calls.push({ method: 'reachSettings', args: [] });
    if (this.failReachLoad) throw this.failReachLoad;
    return wire(this.reach);
  }

  /** Like the server: checked, then stored as sent. */
  async saveReachSettings(settings: ReachSettings) {
    this.calls.push({ method: 'saveReachSettings', args: [wire(settings)] });
    checkReach(settings, this.channelSecretsKept);
    this.reach = wire({ channels: settings.channels ?? [], rules: settings.rules ?? [], onCall: settings.onCall ?? [] });
    return { ...wire(this.reach), warnings: [...this.reachWarnings] };
  }

  /** Like the server: a stored channel only (`not_found` else), tried whether it is on or not. */
  async testChannel(name: string) {
    this.calls.push({ method: 'testChannel', args: [name] });
    if (!(this.reach.channels ?? []).some((c) => c.name === name)) throw new ApiError('not_found', `channel ${name} not found`, null, 404);
    const answer = this.channelTests[name] ?? { sent: true, error: null };
    return { channel: name, ...answer };
  }

  async channelSecrets() {
    this.calls.push({ method: 'channelSecrets', args: [] });
    return wire(Object.entries(this.channelSecretsKept).sort(([a], [b]) => a.localeCompare(b)).map(([channel, kept]) => ({ channel, kept })));
  }

  /** Like the server: the local admin only, a channel's name, one line; kept in a file (as `serve`). */
  async setChannelSecret(name: string, value: string) {
    this.calls.push({ method: 'setChannelSecret', args: [name, value] });
    this.localAdminOnly('set');
    if (!NAME.test(name)) throw new ApiError('invalid_request', `channel name ${JSON.stringify(name)}: 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit`, null, 400);
    if (value === '' || /[\r\n]/.test(value)) throw new ApiError('invalid_request', `the secret of channel ${name} must be one line, not empty`, null, 400);
    this.channelSecretsKept[name] = 'file';
    return { channel: name, kept: 'file' as const };
  }

  async removeChannelSecret(name: string) {
    this.calls.push({ method: 'removeChannelSecret', args: [name] });
    this.localAdminOnly('remove');
    const kept = this.channelSecretsKept[name];
    if (!kept) throw new ApiError('not_found', `a secret of channel ${name} not found`, null, 404);
    delete this.channelSecretsKept[name];
    return { channel: name, removedFrom: [kept] };
  }

  private localAdminOnly(what: 'set' | 'remove') {
    if (this.principal.kind !== 'local') {
      throw new ApiError('forbidden', `only the local admin (the CLI, the desktop window, or serve's session token on 127.0.0.1) may ${what} a channel's secret; the stored credential ${this.principal.name} is not`, null, 403);
    }
  }

  private reachOf(id: string): CallReach {
    if (!this.items.has(id)) throw new ApiError('not_found', `no item ${id}`, null, 404);
    return wire({ claim: this.claims.get(id) ?? null, messages: this.reachMessages.get(id) ?? [] });
  }

  async callReach(id: string) {
    this.reachAsked.push(id);
    if (this.failCallReach) throw this.failCallReach;
    return this.reachOf(id);
  }

  /** Like the server: a pending call only (`already_decided` else), claimed by the session's person (its name here), replacing an earlier claim. */
  async claimCall(id: string) {
    this.calls.push({ method: 'claimCall', args: [id] });
    const e = this.failClaim;
    this.failClaim = null;
    if (e) throw e;
    const item = this.items.get(id);
    if (!item) throw new ApiError('not_found', `no item ${id}`, null, 404);
    if (item.state !== 'pending') throw new ApiError('already_decided', `the call is ${item.state}`, { state: item.state }, 409);
    this.claims.set(id, { person: this.principal.name, principal: `${this.principal.kind}:${this.principal.name}`, claimedAt: this.claimAt });
    // Its messages not sent yet are skipped now (the sender finds the claim).
    const messages = this.reachMessages.get(id);
    if (messages) this.reachMessages.set(id, messages.map((m) => (m.state === 'pending' ? { ...m, state: 'skipped' } : m)));
    return this.reachOf(id);
  }

  /** Like the server: 1 to 90 days (clamped). */
  async reachStats(days: number) {
    this.calls.push({ method: 'reachStats', args: [days] });
    const d = Math.min(90, Math.max(1, Math.trunc(days)));
    const figures = this.reachFigures;
    return wire(figures === null ? emptyReachStats(d) : typeof figures === 'function' ? figures(d) : figures);
  }
}
