/**
 * Settings → Channels and escalation, apart from its markup (`ReachSettings.svelte` and its parts):
 * the `reach` settings as the form holds them (texts, ticks, an amount in a unit) and back. Pure, so
 * each conversion is tested without a page (`reach-form.test.ts`).
 *
 * Secrets are never part of it, nor where one is kept: a channel's secret is its own, found by its
 * name, and set apart from the document by the local admin (`Backend.setChannelSecret`). A stored
 * channel that still names one by place (`secretRef`, `secretFile`: removed) is read without it, so
 * saving the form drops it. Nothing is checked here beyond what the form cannot say otherwise: the server checks the rest and
 * answers `invalid_request` with a message naming the channel, rule or shift (`badEntry` finds it).
 */
import type { CallSource, ChannelKind, MailTls, OnCallShift, ReachChannel, ReachRule, ReachSettings, RiskLevel } from './backend/backend';
import { toUnits, UNIT_SECS, type DurationUnit } from './expiry';

export const CHANNEL_KINDS: readonly ChannelKind[] = ['webhook', 'slack', 'email', 'matrix'];
export const MAIL_TLS: readonly MailTls[] = ['starttls', 'tls', 'none'];
export const RISK_LEVELS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];
/** A step's delay is at most a week (the server's limit). */
export const STEP_UNITS: readonly DurationUnit[] = ['seconds', 'minutes', 'hours', 'days'];
/** Weekdays as the server numbers them: 0 Monday … 6 Sunday. */
export const WEEKDAYS = [0, 1, 2, 3, 4, 5, 6] as const;
/** The names a step may tell besides persons. */
export const ON_CALL = 'on-call';
export const EVERYONE = 'everyone';

export type ChannelDraft = {
  name: string;
  kind: ChannelKind;
  person: string;
  /** Webhook: its URL; email: the address; Matrix: the room id. Unused by Slack. */
  target: string;
  /** Email: `host:port`; Matrix: the homeserver's URL. */
  server: string;
  /** Email only, as the next three. */
  from: string;
  username: string;
  tls: MailTls;
  caFile: string;
  quiet: boolean;
  quietFrom: string;
  quietTo: string;
  includeArgs: boolean;
  enabled: boolean;
};

export type StepDraft = { amount: string | number | null; unit: DurationUnit; notify: string };

export type ReachRuleDraft = {
  name: string;
  /** Comma-separated. */
  tools: string;
  agents: string;
  sources: CallSource[];
  /** `''`: any risk. */
  minRisk: RiskLevel | '';
  steps: StepDraft[];
};

/** `days[d]`: on call on weekday `d` (none ticked: every day). */
export type ShiftDraft = { person: string; days: boolean[]; from: string; to: string };

export type ReachForm = { channels: ChannelDraft[]; rules: ReachRuleDraft[]; onCall: ShiftDraft[] };

/** Which fields a kind of channel uses (the form shows only those, and sends only those). */
export function channelUses(kind: ChannelKind): { target: boolean; server: boolean; mail: boolean } {
  return { target: kind !== 'slack', server: kind === 'email' || kind === 'matrix', mail: kind === 'email' };
}

/** A comma- (or line-) separated list, each name trimmed, empty ones left out. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

const joinList = (list: readonly string[] | null | undefined) => (list ?? []).join(', ');
const text = (value: string | null | undefined) => value ?? '';
const optional = (value: string) => (value.trim() === '' ? null : value.trim());

export function newChannel(): ChannelDraft {
  return {
    name: '',
    kind: 'webhook',
    person: '',
    target: '',
    server: '',
    from: '',
    username: '',
    tls: 'starttls',
    caFile: '',
    quiet: false,
    quietFrom: '22:00',
    quietTo: '07:00',
    includeArgs: false,
    enabled: true,
  };
}

export function newStep(): StepDraft {
  return { amount: '0', unit: 'minutes', notify: '' };
}

export function newRule(): ReachRuleDraft {
  return { name: '', tools: '', agents: '', sources: [], minRisk: '', steps: [newStep()] };
}

export function newShift(): ShiftDraft {
  return { person: '', days: WEEKDAYS.map(() => false), from: '09:00', to: '17:00' };
}

function toChannelDraft(c: ReachChannel): ChannelDraft {
  const q = c.quietHours ?? null;
  return {
    ...newChannel(),
    name: c.name,
    kind: c.kind,
    person: c.person,
    target: text(c.target),
    server: text(c.server),
    from: text(c.from),
    username: text(c.username),
    tls: c.tls ?? 'starttls',
    caFile: text(c.caFile),
    quiet: q !== null,
    ...(q ? { quietFrom: q.from, quietTo: q.to } : {}),
    includeArgs: c.includeArgs === true,
    enabled: c.enabled !== false,
  };
}

function toStepDraft(afterSecs: number, notify: readonly string[]): StepDraft {
  // 0 reads best in minutes ("after 0 minutes": at once).
  const { amount, unit } = afterSecs === 0 ? { amount: '0', unit: 'minutes' as const } : toUnits(afterSecs);
  return { amount, unit, notify: joinList(notify) };
}

export function toReachForm(s: ReachSettings): ReachForm {
  return {
    channels: (s.channels ?? []).map(toChannelDraft),
    rules: (s.rules ?? []).map((r) => ({
      name: r.name,
      tools: joinList(r.tools),
      agents: joinList(r.agents),
      sources: [...(r.sources ?? [])],
      minRisk: r.minRisk ?? '',
      steps: r.steps.map((st) => toStepDraft(st.afterSecs, st.notify)),
    })),
    onCall: (s.onCall ?? []).map((sh) => ({
      person: sh.person,
      days: WEEKDAYS.map((d) => (sh.days ?? []).includes(d)),
      from: sh.from,
      to: sh.to,
    })),
  };
}

/** `HH:MM` from a time field (which may add seconds). */
const hhmm = (value: string) => value.trim().slice(0, 5);

/**
 * Seconds from an amount in a unit. A number field bound in Svelte holds a number, or `null` when
 * empty; a blank or non-numeric amount is 0 (at once), a negative one is sent as it is and refused by
 * the server.
 */
function secs(amount: string | number | null, unit: DurationUnit): number {
  const t = String(amount ?? '').trim();
  const n = Number(t);
  return Number.isFinite(n) && t !== '' ? Math.round(n * UNIT_SECS[unit]) : 0;
}

function fromChannelDraft(d: ChannelDraft): ReachChannel {
  const uses = channelUses(d.kind);
  return {
    name: d.name.trim(),
    kind: d.kind,
    person: d.person.trim(),
    target: uses.target ? d.target.trim() : '',
    server: uses.server ? optional(d.server) : null,
    from: uses.mail ? optional(d.from) : null,
    username: uses.mail ? optional(d.username) : null,
    tls: uses.mail ? d.tls : 'starttls',
    caFile: uses.mail ? optional(d.caFile) : null,
    quietHours: d.quiet ? { from: hhmm(d.quietFrom), to: hhmm(d.quietTo) } : null,
    includeArgs: d.includeArgs,
    enabled: d.enabled,
  };
}

function fromRuleDraft(d: ReachRuleDraft): ReachRule {
  return {
    name: d.name.trim(),
    tools: splitList(d.tools),
    agents: splitList(d.agents),
    sources: [...d.sources],
    minRisk: d.minRisk === '' ? null : d.minRisk,
    steps: d.steps.map((st) => ({ afterSecs: secs(st.amount, st.unit), notify: splitList(st.notify) })),
  };
}

function fromShiftDraft(d: ShiftDraft): OnCallShift {
  return { person: d.person.trim(), days: WEEKDAYS.filter((w) => d.days[w]), from: hhmm(d.from), to: hhmm(d.to) };
}

/** The settings to send. */
export function fromReachForm(f: ReachForm): ReachSettings {
  return { channels: f.channels.map(fromChannelDraft), rules: f.rules.map(fromRuleDraft), onCall: f.onCall.map(fromShiftDraft) };
}

/** The persons a step may name: those with a channel, each once, in order. */
export function personsOf(f: ReachForm): string[] {
  return [...new Set(f.channels.map((c) => c.person.trim()).filter((p) => p !== ''))];
}

/**
 * The channel, rule or shift a refusal of the server names (`channel NAME …`, `channel name "NAME"…`,
 * `rule NAME …`, `rule name "NAME"…`, `on-call shift of "PERSON"…`), as its index in the form; -1
 * where it names none of that kind.
 */
export function badEntry(message: string, f: ReachForm): { channel: number; rule: number; shift: number } {
  const quoted = (prefix: string) => {
    if (!message.startsWith(prefix)) return null;
    try {
      // A Rust `{:?}` string: a JSON string for the names the server accepts.
      const m = /^"(?:[^"\\]|\\.)*"/.exec(message.slice(prefix.length));
      return m ? (JSON.parse(m[0]) as string) : null;
    } catch {
      return null;
    }
  };
  const plain = (prefix: string) => (message.startsWith(prefix) ? (/^[^\s:(]+/.exec(message.slice(prefix.length))?.[0] ?? null) : null);
  const channelName = quoted('channel name ') ?? plain('channel ');
  const ruleName = quoted('rule name ') ?? plain('rule ');
  const shiftPerson = quoted('on-call shift of ');
  const find = <T>(list: readonly T[], name: string | null, of: (t: T) => string) => (name === null ? -1 : list.findIndex((t) => of(t).trim() === name));
  // A name given twice: the later channel is the one in the way.
  const twice = quoted('channel name ');
  const last = twice === null ? -1 : f.channels.map((c) => c.name.trim()).lastIndexOf(twice);
  return {
    channel: last >= 0 ? last : find(f.channels, channelName, (c) => c.name),
    rule: find(f.rules, ruleName, (r) => r.name),
    shift: find(f.onCall, shiftPerson, (s) => s.person),
  };
}

/** Whether the channel as drafted is stored as it is (a test message goes out as stored: a change must be saved first). */
export function channelStored(d: ChannelDraft, stored: readonly ReachChannel[]): boolean {
  const s = stored.find((c) => c.name === d.name.trim());
  return !!s && JSON.stringify(fromChannelDraft(d)) === JSON.stringify(fromChannelDraft(toChannelDraft(s)));
}
