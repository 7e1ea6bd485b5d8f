/**
 * The one surface the UI talks to. Components get a `Backend` from context
 * (see `context.ts`) and never know whether it is HTTP + SSE (`web.ts`) or
 * Tauri IPC (`tauri.ts`). Only `main.ts` chooses the implementation.
 */

import type { components, operations } from './api.gen';
import type { ApiError } from './api-error';
import type { ChannelSecretsBackend } from './channel-secrets';
import type { AnswerOf, Declared, Request } from './operations';

/**
 * The wire types, generated from the server's OpenAPI document (`ui/openapi.json`, made by
 * `approval-console openapi`; `npm run gen:api` rewrites `api.gen.ts`). Never copy a field by hand
 * here: alias the generated schema, so a server change shows up as a type error, not at run time.
 *
 * Fields the server writes as `null` may be typed `?: T | null` (optional) by the generator; read
 * them with `== null` / `?? null`, never `=== null`.
 */
type Schemas = components['schemas'];

export type ItemKind = Schemas['CallKind'];
/**
 * Where a call comes from (`item.source`): `local` (the console's engine), `mastra` (a remote
 * engine), or, for calls agents submitted themselves, `http`, `claude-code`, `codex`, `gemini`, `mcp`.
 */
export type CallSource = Schemas['CallSource'];
export type ItemState = Schemas['ItemState'];
export type DecisionKind = Schemas['DecisionKind'];
export type DeliveryState = Schemas['Delivery'];
export type ChainLink = Schemas['ChainLink'];
export type DecisionView = Schemas['DecisionView'];
/** The decision taken on an item (the server's `DecisionView`). */
export type Decision = DecisionView;

/**
 * One paused tool call. `args`, `suspendPayload` and `resumeSchema` are untrusted engine data,
 * typed `unknown`, and may be huge or deep.
 */
export type QueueItem = Schemas['QueueItem'];
export type QueuePage = Schemas['QueuePage'];
/** `{item}`: the call of the same tool in the same thread decided last before a given one (`null`: none). */
export type PreviousCall = Schemas['PreviousCall'];
export type CallReason = Schemas['CallReason'];
/** `{viewers, heartbeatSecs}`: who else has a call open (presence), and when to say so again. */
export type Presence = Schemas['Presence'];
export type Viewer = Schemas['Viewer'];
/**
 * The tab of the queue view a call is under (its `tab`): `pending`, `awaiting_delivery` (decided,
 * in the outbox), `decided` (by an operator, delivery over), `expired` (declined by its time limit,
 * delivery over), `gone` (ended elsewhere). The server decides; see `QueueTab` in the API.
 */
export type QueueTab = Schemas['QueueTab'];
/** Calls per tab under the current filters and search, and pending ones under none. */
export type QueueCounts = Schemas['QueueCounts'];

export type AuditEntry = Schemas['AuditEntry'];
export type AuditPage = Schemas['AuditPage'];
export type BadEntry = Schemas['BadEntry'];
export type AuditVerification = Schemas['Verification'];
/** A decision as the audit log recorded it, with its newest delivery entry (`null` while none). */
export type DecisionRecord = Schemas['DecisionRecord'];
export type DecisionHistory = Schemas['DecisionHistory'];
/** The call an audit entry is about: its agent and source (`calls` of a page, by queue entry id). */
export type CallOrigin = Schemas['CallOrigin'];
/** A grant as the audit view names it: what it allows, who made it (`grants` of a page, by id). */
export type GrantName = Schemas['GrantName'];
/** The audit log's filters as the server takes them (`toQuery` of `audit-filter.ts` makes one). */
export type AuditQuery = Pick<NonNullable<operations['audit_page']['parameters']['query']>, 'action' | 'agent' | 'source' | 'from' | 'until'>;
/** A source calls came from, with its engine and agents (`GET /api/sources`). */
export type SourceSeen = Schemas['SourceSeen'];
export type AgentSeen = Schemas['AgentSeen'];
/** What a test message on a channel did (`sent`, or the channel's `error`). */
export type ChannelTest = Schemas['ChannelTest'];
/** `jsonl`: the entries themselves, one per line (hashes checkable); `csv`: for spreadsheets, formulas defused. */
export type ExportFormat = Schemas['ExportFormat'];
/** Where the desktop app saved a file (`save_audit_export`; not an HTTP route). */
export type SavedFile = { path: string };

/** The body of every error answer; `ApiError` carries it to the UI. */
export type ErrorBody = Schemas['ErrorBody'];
/** The `data` of an SSE `queue` event. */
export type QueueEvent = Schemas['QueueEvent'];

export type ApproveBody = Schemas['ApproveBody'];
export type ApproveEditedBody = Schemas['ApproveEditedBody'];
export type DeclineBody = Schemas['DeclineBody'];
export type ResumeBody = Schemas['ResumeBody'];
export type ResolveBody = Schemas['ResolveBody'];
/** What became of an interrupted call, as the operator says it (`POST /api/queue/{id}/resolve`). */
export type ResolutionKind = Extract<DecisionKind, 'ran' | 'did_not_run' | 'run_again'>;
/** A resolution as stored on the call (`item.resolution`; `null` until it is resolved). */
export type Resolution = Schemas['Stored'];
export type SnoozeBody = Schemas['SnoozeBody'];

/** A new remote engine (`POST /api/engines`). The token goes to the OS keyring and is never answered back. */
export type NewEngine = Schemas['NewEngine'];
/** Changes to a remote engine (`PATCH /api/engines/:name`); absent fields stay as they are. */
export type EngineChanges = Schemas['EngineChanges'];
/** What one "sync now" did. */
export type SyncReport = Schemas['SyncReport'];
/** A server to try before adding it; the token is used for the test only. */
export type EngineTest = Schemas['EngineTest'];
/** How the server answered a test (`reachable`, `auth_failed`, `unreachable`, `incompatible`), with its agent count. */
export type EngineTestResult = Schemas['EngineTestResult'];

/** How a remote engine answered last. */
export type EngineHealth = Schemas['EngineHealth'];
export type HealthReport = Schemas['HealthReport'];
/** A remote engine with its live health. Only `hasToken` says whether a token is stored; its value is never sent. */
export type EngineView = Schemas['EngineView'];
/**
 * A remote kind: a `CallSource` the server's registry (`engine::kinds`) lists as one a new engine may
 * be (`engineKinds`); the window keeps no list of its own, and the server refuses any other.
 */
export type EngineKind = CallSource;
export type SyncAnswer = Schemas['SyncAnswer'];

/**
 * Whether this process shows desktop notifications (`running`: `serve --notify` or the desktop app)
 * and whether they work (`available`: `null` until one was tried, `false` once showing failed).
 */
export type NotifyStatus = Schemas['NotifyStatus'];
/** What to be told about: on/off, quiet hours, engine and agent filters (`null`: all), high-risk tools. */
export type NotificationSettings = Schemas['NotificationSettings'];
/** `HH:MM` local times; may wrap midnight (`22:00`–`07:00`). */
export type QuietHours = Schemas['QuietHours'];

/** Time limits: `rules` (`tool`, or `"*"` for every tool without a rule of its own; `afterSecs` 1 s – 30 days) and `warnBeforeSecs`. */
export type ExpirySettings = Schemas['ExpirySettings'];
export type ExpiryRule = Schemas['ExpiryRule'];
/**
 * The two-person rule: `rules` (`tool`, exactly; `approvals` 2–10 by different operators). A tool
 * without a rule needs one approval. Admins change them; applied at once, to waiting calls too.
 */
export type QuorumSettings = Schemas['QuorumSettings'];
export type PolicyView = Schemas['PolicyView'];
export type ShadowReport = Schemas['ShadowReport'];
export type QuorumRule = Schemas['QuorumRule'];
/** One operator's approval of a call whose tool needs several (`item.approvals`; `operatorKey`: `token:alice`, `local:bob`). */
export type ApprovalView = Schemas['ApprovalView'];
/** A credential as listed (never its token: the console keeps only a hash). */
export type Credential = Schemas['Credential'];
/** A credential to make: name, role, and what its submitted calls may claim. */
export type TokenRequest = Schemas['TokenRequest'];
/** A credential just made, with its token: the only time the token is shown. */
export type MadeToken = Schemas['MadeToken'];
/** A credential just revoked. */
export type RevokedToken = Schemas['RevokedToken'];
/** A paired device as listed (never its passkey or its sessions): whose operator credential it is, and its signed-in browsers now. */
export type Device = Schemas['Device'];
/** A pairing to start: the device's name (default `<person>-phone-N`) and whose it is (default: who pairs it). */
export type PairingRequest = Schemas['PairingRequest'];
/**
 * A pairing just started: its single-use code (shown only now), the link to open on the phone (the
 * code in its fragment), that link as a QR code (`qrSvg`: SVG text, shown only as an image, never as
 * markup), the certificate pin the phone shows too, and when the code stops working.
 */
export type PairingStarted = Schemas['PairingStarted'];
/** A device just revoked, with how many of its sessions that ended. */
export type RevokedDevice = Schemas['RevokedDevice'];

/** How a channel sends: a signed webhook, a Slack/Mattermost incoming webhook, email (SMTP), a Matrix room. */
export type ChannelKind = Schemas['ChannelKind'];
/** SMTP's transport security (email channels): `starttls` (the default), `tls` (port 465), `none` (a relay on this machine). */
export type MailTls = Schemas['MailTls'];
/** A call's risk level (`minRisk` of an escalation rule). */
export type RiskLevel = Schemas['Level'];
/** A channel's quiet hours, `HH:MM` UTC (`from` after `to` spans midnight). */
export type ChannelQuietHours = Schemas['ChannelQuietHours'];
/** A channel: whose it is and where it sends; never its secret, nor where that is kept (`channelSecrets`). */
export type ReachChannel = Schemas['Channel'];
export type { ChannelSecret, RemovedChannelSecret, SecretPlace } from './channel-secrets';
/** An escalation rule: which calls (tools, agents, sources, `minRisk`; none given: every call) and its steps. */
export type ReachRule = Schemas['Rule'];
/** One step of a rule: after `afterSecs` (0: at once), tell `notify` (persons, `on-call` or `everyone`). */
export type ReachStep = Schemas['Step'];
/** An on-call shift: `person` on these weekdays (0 Monday … 6 Sunday; none: every day), `from`–`to` (`HH:MM` UTC). */
export type OnCallShift = Schemas['Shift'];
/** Settings → Channels and escalation (`/api/settings/reach`): channels, escalation rules, on-call shifts. */
/** The remote listener as configured (`listen`: ADDR:PORT, none: off; `publicName`), and whether it runs (`running`: its origin; `pin`). */
export type RemoteSettings = Schemas['RemoteSettings'];
export type RemoteView = Schemas['RemoteView'];
export type ReachSettings = Schemas['ReachSettings'];
/** The reach settings as saved, with `warnings`: what may not work as saved (sentences from the server, text). */
export type SavedReach = Schemas['SavedReach'];
/** Who claimed a call ("I'm on it"): their person, their principal's key (`token:alice`), and when. */
export type CallClaim = Schemas['Claim'];
/** A message of a call to a channel: `pending`, `sent`, `skipped` or `failed`; `lastError` (why not) is untrusted text. */
export type ReachMessage = Schemas['Message'];
/** A call's reach: who claimed it (`null`: nobody), and its channels' messages in order. */
export type CallReach = Schemas['CallReach'];
/** Time to decision of one group (channel, person, rule or day): how many calls, p50 and p90 in seconds. */
export type ReachTiming = Schemas['Timing'];
/** `GET /api/stats/reach?days=N`: time to decision by channel, person, rule and day (UTC `YYYY-MM-DD`). */
export type ReachStats = Schemas['ReachStats'];
/** An "always allow" grant as stored (`revokedAt`, `expiresAt` and `uses` say whether and how much it applied). */
export type Grant = Schemas['Grant'];
/** A grant to make from a call on screen; `fingerprint` is the one shown (C3). */
export type NewGrant = Schemas['NewGrant'];
/** A grant just made, with how many waiting calls it approves at once. */
export type CreatedGrant = Schemas['CreatedGrant'];
/** What a grant would do if made now: how many waiting calls it would approve. */
export type GrantPreview = Schemas['GrantPreview'];
/** Where a coding agent keeps the rule a grant's approval writes back (issue 47). */
export type RuleScope = Schemas['RuleScope'];
/** What a grant's approval tells a coding agent, and where it keeps it (the preview's `agentRule`). */
export type AgentRulePreview = Schemas['AgentRulePreview'];
/** Who the console's credential stands for (`role`: agent < operator < admin). */
export type Principal = Schemas['Principal'];
/** `agent` < `operator` < `admin`: each may do what the ones before it may. */
export type Role = Schemas['Role'];
export type GrantScope = Schemas['GrantScope'];
/** A condition on a later call's arguments: the value at a JSON Pointer `equals`, starts with (`prefix`), is `atMost` / `atLeast` a value. */
export type GrantCondition = Schemas['Condition'];
export type ConditionOp = Schemas['ConditionOp'];
/** Why a grant's conditions limit nothing (`grant_too_broad`'s `details.reason`). */
export type TooBroad = Schemas['TooBroad'];

/**
 * `GET /api/stats?days=N` (Tauri: `stats` with `{days}`): the period (`since`–`until`, RFC 3339),
 * its decisions, by tool and by operator, and pending calls hour by hour, oldest first.
 */
export type TeamStats = Schemas['TeamStats'];
/** How the calls of the period ended: `total` is all of them, expiries (declined by a time limit) included. */
export type DecisionCounts = Schemas['DecisionCounts'];
/**
 * One tool's calls decided in the period; the times are seconds from the call pausing to its
 * decision (`null` when none of its decisions is among the 200,000 newest the server reads).
 */
export type ToolStats = Schemas['ToolStats'];
/** One operator's decisions in the period (`operator`: the actor as the audit log names it). */
export type OperatorStats = Schemas['OperatorStats'];
/** The calls pending at the end of the hour that ends at `at` (the last point: the server's now). */
export type PendingPoint = Schemas['PendingPoint'];

/**
 * A JSON Schema as the engine sends it for `resumeSchema` (the API types it as any JSON value);
 * only the parts the form reads are typed. Check the value is an object before treating it as one.
 */
export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  [key: string]: unknown;
};

export type QueueFilter = {
  /** The tab (default `pending`), or `all` (the server's `TabFilter`). */
  tab?: Schemas['TabFilter'];
  engine?: string;
  /** Where calls come from (`''`: any source). */
  source?: CallSource | '';
  agent?: string;
  tool?: string;
  kind?: ItemKind | '';
  thread?: string;
  run?: string;
  /** Search words, all of which must occur in the tool name, agent, or the arguments' JSON text (server-side). */
  q?: string;
  /** `newest` (default) or `oldest` first; a cursor continues in the order it was made for. */
  sort?: Schemas['SortOrder'];
  limit?: number;
  cursor?: string | null;
};

/**
 * A change pushed by the server. `resync` means: reload whatever list you show. `open` asks to show
 * a call (`item`, or just the queue when `null`), with why if an action elsewhere was refused: the
 * desktop app sends it when a notification is clicked; the web backend never does.
 */
export type BackendEvent =
  // The schema types `type` as a string; these are the values the UI acts on (others are ignored).
  | { kind: 'queue'; type: 'added' | 'updated' | 'removed'; id: QueueEvent['id'] }
  | { kind: 'resync' }
  | { kind: 'open'; item: string | null; reason: string | null };

/** A `queue` event's payload (parsed JSON, untrusted) as a `BackendEvent`; `null` if malformed or of an unknown type. */
export function queueEventFrom(data: unknown): BackendEvent | null {
  if (!data || typeof data !== 'object') return null;
  // Untrusted until checked: every field of the schema's shape, typed `unknown`.
  const { type, id } = data as { [K in keyof QueueEvent]?: unknown };
  if ((type === 'added' || type === 'updated' || type === 'removed') && typeof id === 'string') {
    return { kind: 'queue', type, id };
  }
  return null;
}

/**
 * State of the live event connection. `open` is reported on every (re)connect; since events may
 * have been missed before it, a consumer reloads its list on `open`.
 */
export type ConnectionStatus =
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'retrying'; inMs: number; error: ApiError }
  | { state: 'stopped'; error: ApiError };

export type Subscriber = {
  onEvent: (event: BackendEvent) => void;
  onStatus?: (status: ConnectionStatus) => void;
};

export interface Backend extends ChannelSecretsBackend {
  /**
   * Any operation the core declares as a request and an answer, by its catalog name, typed from the
   * OpenAPI document (`operations.ts`): what a new operation is called through before, or instead
   * of, a method of its own.
   */
  run<K extends Declared>(name: K, request?: Request<K>): Promise<AnswerOf<K>>;
  listQueue(filter?: QueueFilter): Promise<QueuePage>;
  /** Calls per tab under the filter's filters and search (its tab, sort, limit and cursor are ignored). */
  queueCounts(filter?: QueueFilter): Promise<QueueCounts>;
  getItem(id: string): Promise<QueueItem>;
  /**
   * The call an operator decided last before this one, of the same engine, thread and tool, with its
   * decision (`item: null` when there is none: no thread, or the first such call), to show what changed.
   */
  previousCall(id: string): Promise<PreviousCall>;
  /** What led to the call: its conversation's last messages (untrusted text), or why there are none. */
  callReason(id: string): Promise<CallReason>;
  /**
   * Says this window has the call open (again every `heartbeatSecs` while it stays open) and answers
   * who else has it open right now, on any console of the team; the caller is never listed.
   */
  viewing(id: string): Promise<Presence>;
  /** Says this window closed the call, so the others stop seeing it at once. */
  stopViewing(id: string): Promise<void>;
  /** `fingerprint` must be the one displayed for the item, never a re-fetched one (rule C3). */
  approve(id: string, fingerprint: string): Promise<QueueItem>;
  decline(id: string, fingerprint: string, reason?: string): Promise<QueueItem>;
  resume(id: string, fingerprint: string, data: unknown): Promise<QueueItem>;
  /**
   * Approves with edited arguments (offered where `item.allowed` has `edit`: the local engine). The
   * `fingerprint` is the one on screen for the call as shown (C3); the decision then holds it and
   * `editedFingerprint`, the one of `args`. `invalid_arguments` (details `{errors: [{path, message}]}`)
   * when `args` fail the tool's input schema, `decision_not_allowed` where edits cannot run.
   */
  approveEdited(id: string, fingerprint: string, args: unknown): Promise<QueueItem>;
  /**
   * Says what became of an interrupted call (the console stopped while its tool ran): it `ran`
   * (`result`, if given, is what the agent's model is told the tool returned), it `did_not_run` (the
   * model is told it failed), or `run_again` (where `item.allowed` has it: tools marked idempotent).
   * `fingerprint` is the one on screen (C3). Answers the call afterwards; for `run_again`, the new
   * entry that ran the call again. `already_decided` once resolved, `decision_not_allowed` (not
   * interrupted, or `run_again` not allowed; details `allowed`), `fingerprint_mismatch`,
   * `invalid_request` (a result with another resolution than `ran`).
   */
  resolve(id: string, resolution: ResolutionKind, fingerprint: string, result?: unknown): Promise<QueueItem>;
  /** Starts listening for live changes; returns a function that stops it. */
  subscribe(subscriber: Subscriber): () => void;
  /** A page of the log, newest first, filtered by `filter` (none: every entry). */
  listAudit(opts?: { limit?: number; cursor?: string | null; filter?: AuditQuery }): Promise<AuditPage>;
  verifyAudit(): Promise<AuditVerification>;
  /** Decisions from the audit log, newest first, each with its newest delivery entry, filtered by `filter`. */
  decisionHistory(opts?: { limit?: number; cursor?: string | null; filter?: AuditQuery }): Promise<DecisionHistory>;
  /** The whole audit log as text, oldest first. */
  exportAudit(format: ExportFormat): Promise<string>;
  /**
   * Only where the backend saves files itself (the desktop app, whose webview has no usable
   * downloads): writes the export as a new file in the Downloads folder and answers its path.
   */
  saveAuditExport?(format: ExportFormat): Promise<SavedFile>;
  /** Only the desktop app: the language chosen in the window, for its notifications and tray too. */
  setLanguage?(choice: 'system' | 'en' | 'ja'): Promise<void>;
  /** Remote engines by name, with live health (not pushed as events: poll). */
  listEngines(): Promise<EngineView[]>;
  /** Every source calls came from (hooks, HTTP agents, the MCP gate, local and remote engines), with their agents, the most recent first. */
  sources(): Promise<SourceSeen[]>;
  /** Adds a remote engine; a token goes to the OS keyring (`keyring_unavailable` / `keyring_locked` if it cannot). */
  addEngine(engine: NewEngine): Promise<EngineView>;
  editEngine(name: string, changes: EngineChanges): Promise<EngineView>;
  /** Removes the engine and its keyring entry; its queue entries stay as history. */
  removeEngine(name: string): Promise<void>;
  /** The kinds a new remote engine may be, as the server's registry has them, the default first. */
  engineKinds(): Promise<EngineKind[]>;
  /** Tries a server before adding it; stores nothing. `invalid_request` for a base URL that is not one. */
  testEngine(test: EngineTest): Promise<EngineTestResult>;
  /** Syncs now: `engine_unreachable` / `engine_error` when the engine cannot be listed. */
  syncEngine(name: string): Promise<SyncAnswer>;
  /** The engine's agents as last listed (untrusted engine data). */
  engineAgents(name: string): Promise<unknown>;
  /** Whether desktop notifications run in this process and work (not pushed as events: poll). */
  notificationStatus(): Promise<NotifyStatus>;
  notificationSettings(): Promise<NotificationSettings>;
  /**
   * Stores the settings (they apply to the next new call); `invalid_request` for a time that is not
   * `HH:MM`. A high-risk tool removed widens what runs without an operator: `widening_unconfirmed`
   * (`details.widens`, nothing stored) unless `confirmWidening`.
   */
  saveNotificationSettings(settings: NotificationSettings, confirmWidening?: boolean): Promise<NotificationSettings>;
  /** The time limits (`expiresAt` of pending calls follows from them). */
  expirySettings(): Promise<ExpirySettings>;
  /** Stores the time limits (applied within seconds, also to calls already waiting); `invalid_request` for a limit out of range. */
  saveExpirySettings(settings: ExpirySettings): Promise<ExpirySettings>;
  /** The quorums of the two-person rule. */
  quorumSettings(): Promise<QuorumSettings>;
  /** The policy in force: its version, its file, the policy files applied before. */
  policyView(): Promise<PolicyView>;
  /** What each shadow grant would have done beside what operators did. */
  shadowReport(): Promise<ShadowReport>;
  /**
   * Stores the quorums (admins only); `invalid_request` for a rule without a tool, a tool twice, or
   * approvals outside 2–10. A quorum lowered or removed: `widening_unconfirmed` (`details.widens`,
   * nothing stored) unless `confirmWidening`.
   */
  saveQuorumSettings(settings: QuorumSettings, confirmWidening?: boolean): Promise<QuorumSettings>;
  /**
   * Moves a pending call's deadline to `secs` from now (60 s – 30 days, never earlier than it was);
   * answers the call with its new `expiresAt`. `invalid_request` when no time limit applies.
   */
  snooze(id: string, secs: number): Promise<QueueItem>;
  /** Every grant, newest first (revoked and expired ones too). */
  listGrants(): Promise<Grant[]>;
  /**
   * Makes a grant from a call: `high_risk_tool`, `fingerprint_mismatch` (the call changed since it
   * was shown), `invalid_request` (conditions the call does not meet, a lifetime out of 60 s – 30 days, a suspend call).
   */
  createGrant(grant: NewGrant): Promise<CreatedGrant>;
  /** How many waiting calls `grant` would approve if made now (checked like `createGrant`; nothing stored). */
  previewGrant(grant: NewGrant): Promise<GrantPreview>;
  /** Revokes a grant; answers it revoked (`invalid_request` if it already was). */
  revokeGrant(id: string): Promise<Grant>;
  /** The live credentials, by name (admins only). */
  listTokens(): Promise<Credential[]>;
  /**
   * Makes a credential (admins only); its `token` is in this answer only. `invalid_request` for a
   * name or claim not allowed, or a live credential of that name.
   */
  addToken(request: TokenRequest): Promise<MadeToken>;
  /** Revokes a credential (admins only): its token stops working at once. `not_found` if none is live. */
  revokeToken(name: string): Promise<RevokedToken>;
  /** The paired devices that are not revoked, by name (admins only). */
  listDevices(): Promise<Device[]>;
  /**
   * Starts pairing a phone (admins only): its code, link, QR code and certificate pin, in this answer
   * only. `invalid_request` when the remote listener is off (the message says how to start it), or
   * for a name taken or not allowed.
   */
  startPairing(request: PairingRequest): Promise<PairingStarted>;
  /** Renames a device (admins only). `invalid_request` for a name taken or not allowed, `not_found` if none is live. */
  renameDevice(name: string, newName: string): Promise<Device>;
  /** Revokes a device (admins only): its sessions end at once. `not_found` if none is live. */
  revokeDevice(name: string): Promise<RevokedDevice>;
  /** The remote listener's settings and whether it runs here (admins only). */
  remoteSettings(): Promise<RemoteView>;
  /** Stores them (admins only; audited): applied at the console's next start. `invalid_request` for a bad address or name. */
  saveRemoteSettings(settings: RemoteSettings): Promise<RemoteView>;
  /** The channels, escalation rules and on-call shifts (operators and admins; no secret is in them). */
  reachSettings(): Promise<ReachSettings>;
  /**
   * Stores them (admins only; calls pausing from then on are planned by them). `invalid_request`
   * with a message for what cannot work: a name twice, a channel without its address, a channel that
   * needs a secret without one set, plain SMTP to another machine, a bad time, a rule without steps.
   */
  saveReachSettings(settings: ReachSettings): Promise<SavedReach>;
  /** Sends a test message on the stored channel `name` now (admins); `not_found` when no channel of that name is stored. */
  testChannel(name: string): Promise<ChannelTest>;
  /**
   * "I'm on it": the call is claimed by this operator's person, shown to everyone, and its
   * escalation stops. Answers the call's reach. `already_decided` once it no longer waits.
   */
  claimCall(id: string): Promise<CallReach>;
  /** Who claimed the call, and its channels' messages (not pushed: read again on the call's events and every so often). */
  callReach(id: string): Promise<CallReach>;
  /** Time to decision by channel, person, rule and day over the last `days` days (1–90; viewers too). */
  reachStats(days: number): Promise<ReachStats>;
  /**
   * Who the credential stands for (`GET /api/session`): its name, role and kind. The console offers
   * only what the role may do (the server refuses the rest with `forbidden`). The desktop window is
   * always the local admin.
   */
  session(): Promise<Principal>;
  /**
   * The team's figures over the last `days` days (1–90; the view offers 1, 7 and 30): decisions by
   * outcome, time to decision (p50, p90) per tool and per operator, and pending calls hour by hour
   * (`GET /api/stats?days=N`; the desktop's `stats` command). Operators and admins.
   */
  stats(days: number): Promise<TeamStats>;
  /** Whether the desktop app starts at login; `null` where that is not available (the web build). */
  autostart(): Promise<boolean | null>;
  /**
   * Starts the desktop app at login, or stops doing so; answers the setting now in effect.
   * `invalid_request` where `autostart()` is `null`.
   */
  setAutostart(enabled: boolean): Promise<boolean>;
}

export { ApiError, shortFingerprint, type KnownErrorCode } from './api-error';
