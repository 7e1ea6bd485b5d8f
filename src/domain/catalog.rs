// The operation catalog: every operation of the console, declared once. One line each:
//
//     Variant name: METHOD "/api/path" => Role, window;
//
// - `Variant` names it in Rust (`domain::ops::Op::Variant`); `name` is its Tauri command and its name in
//   `approval-console manifest` (`--typescript`: ui/src/lib/backend/operations.gen.ts, where the UI's backends take it).
// - `METHOD "/api/path"`: its HTTP route, or `LOCAL` for one without (the window's or the CLI's alone).
// - `Role`: who may call it — `Public` (no credential: `/api/health` alone), `Any` (any credential),
//   else `Agent`, `Viewer`, `Operator` or `Admin` (`Role::includes`). The HTTP guard answers 403 from
//   this table before a handler runs, and the core checks it again (`Actor::may(Op::…)`) whichever
//   shell calls, so a window command or a CLI command is refused the same way.
// - `window`: the desktop app has a command of that name (src-tauri registers exactly these, and its
//   permission set allows exactly these).
//
// This file is a macro call and nothing else: `src/domain/ops.rs` and `src-tauri` (its build script and its
// handler list) each define `operations!` and include it. A route served but not listed here is refused
// to everyone, and tests/layers.rs fails on a route or a window command declared anywhere else.

operations! {
    // Anyone on 127.0.0.1; any credential.
    Health health: GET "/api/health" => Public;
    Session session: GET "/api/session" => Any, window;

    // The local engine's Mastra-shaped API: what agent clients need.
    ListAgents list_agents: GET "/api/agents" => Agent;
    GetAgent get_agent: GET "/api/agents/{agent}" => Agent;
    Generate generate: POST "/api/agents/{agent}/generate" => Agent;
    Stream stream: POST "/api/agents/{agent}/stream" => Agent;
    SuspendedRuns suspended_runs: GET "/api/agents/{agent}/suspended-runs" => Agent;
    // Decisions through the Mastra-shaped routes: an app with its own approval screen is an operator.
    ApproveToolCall approve_tool_call: POST "/api/agents/{agent}/approve-tool-call" => Operator;
    DeclineToolCall decline_tool_call: POST "/api/agents/{agent}/decline-tool-call" => Operator;
    ApproveToolCallGenerate approve_tool_call_generate: POST "/api/agents/{agent}/approve-tool-call-generate" => Operator;
    DeclineToolCallGenerate decline_tool_call_generate: POST "/api/agents/{agent}/decline-tool-call-generate" => Operator;
    ResumeStream resume_stream: POST "/api/agents/{agent}/resume-stream" => Operator;
    SendToolApproval send_tool_approval: POST "/api/agents/{agent}/send-tool-approval" => Operator;

    // Calls that agents submit themselves (the hooks, the MCP gate): queue one, wait, withdraw.
    SubmitCall submit_call: POST "/api/calls" => Agent;
    CallStatus call_status: GET "/api/calls/{id}" => Agent;
    WithdrawCall withdraw_call: DELETE "/api/calls/{id}" => Agent;

    // Signed decision receipts (docs/receipts.md): the public keys (`/.well-known/jwks.json`, for
    // anyone) are served by hand; a call's receipt is for its agent's executor and for operators.
    ReceiptKeys receipt_keys: GET "/.well-known/jwks.json" => Public;
    ReceiptOfCall receipt_of_call: GET "/api/receipts" => Agent;
    Receipt receipt: GET "/api/receipts/{id}" => Operator;
    RotateReceiptKey rotate_receipt_key: POST "/api/receipts/keys/rotate" => Admin;

    // The queue.
    QueuePage queue_page: GET "/api/queue" => Operator, window;
    QueueCounts queue_counts: GET "/api/queue/counts" => Operator, window;
    QueueItem queue_item: GET "/api/queue/{id}" => Operator, window;
    PreviousCall previous_call: GET "/api/queue/{id}/previous" => Operator, window;
    CallReason call_reason: GET "/api/queue/{id}/reason" => Operator, window;
    Approve approve: POST "/api/queue/{id}/approve" => Operator, window;
    ApproveEdited approve_edited: POST "/api/queue/{id}/approve-edited" => Operator, window;
    Decline decline: POST "/api/queue/{id}/decline" => Operator, window;
    Resume resume: POST "/api/queue/{id}/resume" => Operator, window;
    Resolve resolve: POST "/api/queue/{id}/resolve" => Operator, window;
    Snooze snooze: POST "/api/queue/{id}/snooze" => Operator, window;
    Viewing viewing: POST "/api/queue/{id}/viewers" => Operator, window;
    StopViewing stop_viewing: DELETE "/api/queue/{id}/viewers" => Operator, window;
    Events events: GET "/api/events" => Operator;

    // The audit log.
    AuditPage audit_page: GET "/api/audit" => Operator, window;
    VerifyAudit verify_audit: GET "/api/audit/verify" => Operator, window;
    DecisionHistory decision_history: GET "/api/audit/decisions" => Operator, window;
    ExportAudit export_audit: GET "/api/audit/export" => Operator, window;
    SaveAuditExport save_audit_export: LOCAL => Operator, window;

    // Dashboards: a viewer's read-only routes.
    Metrics metrics: GET "/api/metrics" => Viewer;
    Stats stats: GET "/api/stats" => Viewer, window;
    Openapi openapi: GET "/api/openapi.json" => Operator;

    // Settings: every operator reads them, an admin changes them.
    NotificationStatus notification_status: GET "/api/notifications/status" => Operator, window;
    NotificationSettings notification_settings: GET "/api/settings/notifications" => Operator, window;
    SaveNotificationSettings save_notification_settings: PUT "/api/settings/notifications" => Admin, window;
    SafetySettings safety_settings: GET "/api/settings/safety" => Operator;
    SaveSafetySettings save_safety_settings: PUT "/api/settings/safety" => Admin;
    QuorumSettings quorum_settings: GET "/api/settings/quorum" => Operator, window;
    PolicyView policy_view: GET "/api/policy" => Operator, window;
    SaveQuorumSettings save_quorum_settings: PUT "/api/settings/quorum" => Admin, window;
    ExpirySettings expiry_settings: GET "/api/settings/expiry" => Operator, window;
    SaveExpirySettings save_expiry_settings: PUT "/api/settings/expiry" => Admin, window;
    SetLanguage set_language: LOCAL => Operator, window;
    Autostart autostart: LOCAL => Operator, window;
    SetAutostart set_autostart: LOCAL => Admin, window;

    // "Always allow" grants. Revoking only takes automation away: any operator who sees a bad grant may stop it.
    Grants grants: GET "/api/grants" => Operator, window;
    CreateGrant create_grant: POST "/api/grants" => Admin, window;
    ShadowReport shadow_report: GET "/api/grants/shadow-report" => Operator, window;
    PreviewGrant preview_grant: POST "/api/grants/preview" => Admin, window;
    RevokeGrant revoke_grant: POST "/api/grants/{id}/revoke" => Operator, window;

    // Credentials, by an admin: the Settings' Tokens section, and the CLI's `approval-console tokens`.
    Tokens tokens: GET "/api/tokens" => Admin, window;
    AddToken add_token: POST "/api/tokens" => Admin, window;
    RevokeToken revoke_token: DELETE "/api/tokens/{name}" => Admin, window;

    // Operators' channels and escalation: every operator reads them and claims calls; an admin changes them.
    // A channel's secret is set and removed by the local admin alone (its App method refuses any other principal).
    ReachSettings reach_settings: GET "/api/settings/reach" => Operator, window;
    SaveReachSettings save_reach_settings: PUT "/api/settings/reach" => Admin, window;
    ChannelSecrets channel_secrets: GET "/api/settings/reach/secrets" => Operator, window;
    SetChannelSecret set_channel_secret: PUT "/api/settings/reach/channels/{name}/secret" => Admin, window;
    RemoveChannelSecret remove_channel_secret: DELETE "/api/settings/reach/channels/{name}/secret" => Admin, window;
    ClaimCall claim_call: POST "/api/queue/{id}/claim" => Operator, window;
    CallReach call_reach: GET "/api/queue/{id}/reach" => Operator, window;
    ReachStats reach_stats: GET "/api/stats/reach" => Viewer, window;

    // Paired devices (the remote listener, `serve --listen`), by an admin.
    ListDevices list_devices: GET "/api/devices" => Admin, window;
    StartPairing start_pairing: POST "/api/devices/pairings" => Admin, window;
    RenameDevice rename_device: PATCH "/api/devices/{name}" => Admin, window;
    RevokeDevice revoke_device: DELETE "/api/devices/{name}" => Admin, window;
    RemoteSettings remote_settings: GET "/api/settings/remote" => Admin, window;
    SaveRemoteSettings save_remote_settings: PUT "/api/settings/remote" => Admin, window;
    // The remote listener's own routes (404 on 127.0.0.1): a phone proves its pairing code and
    // registers its passkey, signs in with it, signs out; a decision's passkey step-up.
    PairDevice pair_device: POST "/api/remote/pair" => Public;
    PairDeviceFinish pair_device_finish: POST "/api/remote/pair/finish" => Public;
    SignIn sign_in: POST "/api/remote/sign-in" => Public;
    SignInFinish sign_in_finish: POST "/api/remote/sign-in/finish" => Public;
    SignOut sign_out: POST "/api/remote/sign-out" => Any;
    StepUp step_up: POST "/api/remote/step-up" => Operator;

    // Remote engines. A sync reads from the engine and changes no setting.
    Engines engines: GET "/api/engines" => Operator, window;
    AddEngine add_engine: POST "/api/engines" => Admin, window;
    EditEngine edit_engine: PATCH "/api/engines/{name}" => Admin, window;
    RemoveEngine remove_engine: DELETE "/api/engines/{name}" => Admin, window;
    TestEngine test_engine: POST "/api/engines/test" => Admin, window;
    // A static segment wins over `{name}` for every method: an engine named "test" is edited and removed here.
    EditEngineNamedTest edit_engine_named_test: PATCH "/api/engines/test" => Admin;
    RemoveEngineNamedTest remove_engine_named_test: DELETE "/api/engines/test" => Admin;
    SyncEngine sync_engine: POST "/api/engines/{name}/sync" => Operator, window;
    EngineAgents engine_agents: GET "/api/engines/{name}/agents" => Operator, window;
    EngineKinds engine_kinds: GET "/api/engine-kinds" => Operator, window;
}
