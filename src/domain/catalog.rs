// The operation catalog: every operation of the console, declared once. One line each:
//
//     Variant name: METHOD "/api/path" => Grade @ listeners, window;
//     Variant name: LOCAL => Grade, window;
//
// - `Variant` names it in Rust (`domain::ops::Op::Variant`, and the type `domain::ops::graded::Variant`
//   that carries its grade); `name` is its Tauri command and its name in `approval-console manifest`
//   (`--typescript`: ui/src/lib/backend/operations.gen.ts, where the UI's backends take it).
// - `METHOD "/api/path"`: its HTTP route, or `LOCAL` for one without (the window's or the CLI's alone).
// - `Grade`: who it admits (`domain::authority::Grade`) — `Public` (no credential), `Any` (any credential),
//   `Agent` (agent, operator and admin tokens, the local admin; never a device), `Viewer`, `Watch` (reading
//   the queue: operators, admins, the local admin and paired devices), `Operator` (never a device),
//   `Decide` (operators, admins, the local admin; a paired device with a passkey step-up bound to the
//   call, checked in the decision kernel), `Admin`, `Local` (the local admin alone: never a token) or
//   `Device` (a paired device's session alone). `domain::authority::admission` is the whole rule; the
//   authorization table in docs/security.md is printed from it, and tests/api/authorization.rs walks
//   every cell against a running server.
// - `@ local | remote | both`: the listener(s) that serve its route — 127.0.0.1, the remote listener
//   (`serve --listen`), or both. Every operation is also callable in this process by the local admin (the
//   window, the CLI), but the remote listener's own.
// - `window`: the desktop app has a command of that name (src-tauri registers exactly these, and its
//   permission set allows exactly these).
//
// The HTTP guard admits a request from this table before a handler runs (403, or 404 where the
// listener does not serve it) and hands the operation a context typed by its grade (`Cx<Grade>`);
// the window and the CLI admit the same way, so no `App` method checks a role again.
//
// This file is a macro call and nothing else: `src/domain/ops.rs` and `src-tauri` (its build script and its
// handler list) each define `operations!` and include it. A route served but not listed here is refused
// to everyone, and tests/layers.rs fails on a route or a window command declared anywhere else.

operations! {
    // Anyone on 127.0.0.1; any credential.
    Health health: GET "/api/health" => Public @ both;
    Session session: GET "/api/session" => Any @ both, window;

    // The local engine's Mastra-shaped API: what agent clients need.
    ListAgents list_agents: GET "/api/agents" => Agent @ both;
    GetAgent get_agent: GET "/api/agents/{agent}" => Agent @ both;
    Generate generate: POST "/api/agents/{agent}/generate" => Agent @ both;
    Stream stream: POST "/api/agents/{agent}/stream" => Agent @ both;
    SuspendedRuns suspended_runs: GET "/api/agents/{agent}/suspended-runs" => Agent @ both;
    // Decisions through the Mastra-shaped routes: an app with its own approval screen is an operator.
    ApproveToolCall approve_tool_call: POST "/api/agents/{agent}/approve-tool-call" => Operator @ local;
    DeclineToolCall decline_tool_call: POST "/api/agents/{agent}/decline-tool-call" => Operator @ local;
    ApproveToolCallGenerate approve_tool_call_generate: POST "/api/agents/{agent}/approve-tool-call-generate" => Operator @ local;
    DeclineToolCallGenerate decline_tool_call_generate: POST "/api/agents/{agent}/decline-tool-call-generate" => Operator @ local;
    ResumeStream resume_stream: POST "/api/agents/{agent}/resume-stream" => Operator @ local;
    SendToolApproval send_tool_approval: POST "/api/agents/{agent}/send-tool-approval" => Operator @ local;

    // An AG-UI engine's endpoint: a frontend's run relayed to the agent, its interrupts queued (never decided here).
    AgUiRun agui_run: POST "/api/agui/{engine}" => Agent @ both;

    // Calls that agents submit themselves (the hooks, the MCP gate): queue one, wait, withdraw.
    SubmitCall submit_call: POST "/api/calls" => Agent @ both;
    CallStatus call_status: GET "/api/calls/{id}" => Agent @ both;
    WithdrawCall withdraw_call: DELETE "/api/calls/{id}" => Agent @ both;

    // Signed decision receipts (docs/receipts.md): the public keys (`/.well-known/jwks.json`, for
    // anyone) are served by hand; a call's receipt is for its agent's executor and for operators.
    ReceiptKeys receipt_keys: GET "/.well-known/jwks.json" => Public @ both;
    ReceiptOfCall receipt_of_call: GET "/api/receipts" => Agent @ both;
    Receipt receipt: GET "/api/receipts/{id}" => Watch @ both;
    RotateReceiptKey rotate_receipt_key: POST "/api/receipts/keys/rotate" => Admin @ local;

    // The queue.
    QueuePage queue_page: GET "/api/queue" => Watch @ both, window;
    QueueCounts queue_counts: GET "/api/queue/counts" => Watch @ both, window;
    QueueItem queue_item: GET "/api/queue/{id}" => Watch @ both, window;
    PreviousCall previous_call: GET "/api/queue/{id}/previous" => Watch @ both, window;
    CallReason call_reason: GET "/api/queue/{id}/reason" => Watch @ both, window;
    Approve approve: POST "/api/queue/{id}/approve" => Decide @ both, window;
    ApproveEdited approve_edited: POST "/api/queue/{id}/approve-edited" => Decide @ both, window;
    Decline decline: POST "/api/queue/{id}/decline" => Decide @ both, window;
    Resume resume: POST "/api/queue/{id}/resume" => Decide @ both, window;
    Resolve resolve: POST "/api/queue/{id}/resolve" => Decide @ both, window;
    Snooze snooze: POST "/api/queue/{id}/snooze" => Operator @ local, window;
    Viewing viewing: POST "/api/queue/{id}/viewers" => Watch @ both, window;
    StopViewing stop_viewing: DELETE "/api/queue/{id}/viewers" => Watch @ both, window;
    Events events: GET "/api/events" => Watch @ both;

    // The audit log.
    AuditPage audit_page: GET "/api/audit" => Watch @ both, window;
    VerifyAudit verify_audit: GET "/api/audit/verify" => Watch @ both, window;
    DecisionHistory decision_history: GET "/api/audit/decisions" => Watch @ both, window;
    ExportAudit export_audit: GET "/api/audit/export" => Operator @ local, window;
    SaveAuditExport save_audit_export: LOCAL => Operator, window;

    // Dashboards: a viewer's read-only routes.
    Metrics metrics: GET "/api/metrics" => Viewer @ local;
    Stats stats: GET "/api/stats" => Viewer @ local, window;
    Openapi openapi: GET "/api/openapi.json" => Operator @ local;

    // Settings: every operator reads them, an admin changes them.
    NotificationStatus notification_status: GET "/api/notifications/status" => Operator @ local, window;
    NotificationSettings notification_settings: GET "/api/settings/notifications" => Operator @ local, window;
    SaveNotificationSettings save_notification_settings: PUT "/api/settings/notifications" => Admin @ local, window;
    SafetySettings safety_settings: GET "/api/settings/safety" => Operator @ local;
    SaveSafetySettings save_safety_settings: PUT "/api/settings/safety" => Admin @ local;
    QuorumSettings quorum_settings: GET "/api/settings/quorum" => Operator @ local, window;
    PolicyView policy_view: GET "/api/policy" => Operator @ local, window;
    SaveQuorumSettings save_quorum_settings: PUT "/api/settings/quorum" => Admin @ local, window;
    ExpirySettings expiry_settings: GET "/api/settings/expiry" => Operator @ local, window;
    SaveExpirySettings save_expiry_settings: PUT "/api/settings/expiry" => Admin @ local, window;
    SetLanguage set_language: LOCAL => Operator, window;
    Autostart autostart: LOCAL => Operator, window;
    SetAutostart set_autostart: LOCAL => Admin, window;

    // "Always allow" grants. Revoking only takes automation away: any operator who sees a bad grant may stop it.
    Grants grants: GET "/api/grants" => Operator @ local, window;
    CreateGrant create_grant: POST "/api/grants" => Admin @ local, window;
    ShadowReport shadow_report: GET "/api/grants/shadow-report" => Operator @ local, window;
    PreviewGrant preview_grant: POST "/api/grants/preview" => Admin @ local, window;
    RevokeGrant revoke_grant: POST "/api/grants/{id}/revoke" => Operator @ local, window;

    // Credentials, by an admin: the Settings' Tokens section, and the CLI's `approval-console tokens`.
    Tokens tokens: GET "/api/tokens" => Admin @ local, window;
    AddToken add_token: POST "/api/tokens" => Admin @ local, window;
    RevokeToken revoke_token: DELETE "/api/tokens/{name}" => Admin @ local, window;

    // Operators' channels and escalation: every operator reads them and claims calls; an admin changes them.
    // A channel's secret is set and removed by the local admin alone (the `local` grade: never a token).
    ReachSettings reach_settings: GET "/api/settings/reach" => Operator @ local, window;
    SaveReachSettings save_reach_settings: PUT "/api/settings/reach" => Admin @ local, window;
    ChannelSecrets channel_secrets: GET "/api/settings/reach/secrets" => Operator @ local, window;
    SetChannelSecret set_channel_secret: PUT "/api/settings/reach/channels/{name}/secret" => Local @ local, window;
    RemoveChannelSecret remove_channel_secret: DELETE "/api/settings/reach/channels/{name}/secret" => Local @ local, window;
    // A test message on a stored channel: sent with its stored secret to its stored address, as its messages go.
    TestChannel test_channel: POST "/api/settings/reach/channels/{name}/test" => Admin @ local, window;
    ClaimCall claim_call: POST "/api/queue/{id}/claim" => Operator @ local, window;
    CallReach call_reach: GET "/api/queue/{id}/reach" => Watch @ both, window;
    ReachStats reach_stats: GET "/api/stats/reach" => Viewer @ local, window;

    // Paired devices (the remote listener, `serve --listen`), by an admin.
    ListDevices list_devices: GET "/api/devices" => Admin @ local, window;
    StartPairing start_pairing: POST "/api/devices/pairings" => Admin @ local, window;
    RenameDevice rename_device: PATCH "/api/devices/{name}" => Admin @ local, window;
    RevokeDevice revoke_device: DELETE "/api/devices/{name}" => Admin @ local, window;
    RemoteSettings remote_settings: GET "/api/settings/remote" => Admin @ local, window;
    SaveRemoteSettings save_remote_settings: PUT "/api/settings/remote" => Admin @ local, window;
    // The remote listener's own routes (404 on 127.0.0.1): a phone proves its pairing code and
    // registers its passkey, signs in with it, signs out; a decision's passkey step-up.
    PairDevice pair_device: POST "/api/remote/pair" => Public @ remote;
    PairDeviceFinish pair_device_finish: POST "/api/remote/pair/finish" => Public @ remote;
    SignIn sign_in: POST "/api/remote/sign-in" => Public @ remote;
    SignInFinish sign_in_finish: POST "/api/remote/sign-in/finish" => Public @ remote;
    SignOut sign_out: POST "/api/remote/sign-out" => Any @ remote;
    StepUp step_up: POST "/api/remote/step-up" => Device @ remote;

    // Remote engines. A sync reads from the engine and changes no setting.
    Engines engines: GET "/api/engines" => Operator @ local, window;
    AddEngine add_engine: POST "/api/engines" => Admin @ local, window;
    EditEngine edit_engine: PATCH "/api/engines/{name}" => Admin @ local, window;
    RemoveEngine remove_engine: DELETE "/api/engines/{name}" => Admin @ local, window;
    TestEngine test_engine: POST "/api/engines/test" => Admin @ local, window;
    // A static segment wins over `{name}` for every method: an engine named "test" is edited and removed here.
    EditEngineNamedTest edit_engine_named_test: PATCH "/api/engines/test" => Admin @ local;
    RemoveEngineNamedTest remove_engine_named_test: DELETE "/api/engines/test" => Admin @ local;
    SyncEngine sync_engine: POST "/api/engines/{name}/sync" => Operator @ local, window;
    EngineAgents engine_agents: GET "/api/engines/{name}/agents" => Operator @ local, window;
    // Every source calls came from (hooks, HTTP agents, the MCP gate, local and remote engines).
    Sources sources: GET "/api/sources" => Operator @ local, window;
    EngineKinds engine_kinds: GET "/api/engine-kinds" => Operator @ local, window;
}
