//! Remote engines: list with health, add, edit, remove, test, sync now, their agents. Tokens are
//! accepted (and go to the OS keyring) but never answered back (C7). A sync reads from the engine
//! and changes no setting.

use crate::app::engines::{EngineChanges, EngineTest, EngineTestResult, EngineView, NewEngine, SyncAnswer};
use crate::app::sources::SourceSeen;
use crate::domain::CallSource;

crate::declare_operations! {
    Engines(Nothing, none) -> [EngineView], 200 "Remote engines by name, with live health";
        errors []
        |app, _, _, by| { Ok(app.engines(by).await?.into()) }

    AddEngine(Nothing, body NewEngine, window "engine") -> EngineView, 201 "Added; syncing starts at once";
        errors [503 "keyring_unavailable / keyring_locked: the token could not be stored, nothing was added"]
        |app, _, e, by| { Ok(app.add_engine(e, by).await?.into()) }

    EditEngine(Name, body EngineChanges, window "changes") -> EngineView, 200 "Changed";
        errors [404 "not_found", 503 "keyring_unavailable / keyring_locked"]
        |app, p, c, by| { Ok(app.edit_engine(&p.name, c, by).await?.into()) }

    RemoveEngine(Name, none) -> nothing, 204 "Removed, with its keyring entry; its queue entries stay as history";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.remove_engine(&p.name, by).await?.into()) }

    /// Tries a server before it is added; nothing is stored.
    TestEngine(Nothing, body EngineTest, window "test") -> EngineTestResult, 200 "How the server answered (reachable, auth_failed, unreachable or incompatible); nothing is stored";
        errors [400 "invalid_request: not an http(s) base URL"]
        |app, _, t, by| { Ok(app.test_engine(t, by).await?.into()) }

    /// The engine named `test` (a static segment wins over `{name}` for every method).
    EditEngineNamedTest(Nothing, body EngineChanges) -> EngineView, 200 "Changed";
        errors [404 "not_found", 503 "keyring_unavailable / keyring_locked"]
        |app, _, c, by| { Ok(app.edit_engine("test", c, by).await?.into()) }

    /// The engine named `test` (a static segment wins over `{name}` for every method).
    RemoveEngineNamedTest(Nothing, none) -> nothing, 204 "Removed, with its keyring entry; its queue entries stay as history";
        errors [404 "not_found"]
        |app, _, _, by| { Ok(app.remove_engine("test", by).await?.into()) }

    SyncEngine(Name, none) -> SyncAnswer, 200 "What the sync did";
        errors [404 "not_found", 502 "engine_error: the engine answered something unexpected", 503 "engine_unreachable (also when its token is refused)"]
        |app, p, _, by| { Ok(app.sync_engine(&p.name, by).await?.into()) }

    EngineAgents(Name, none) -> any, 200 "The engine's agents as last listed: tools with approval flags and schemas (JSON Schema), sub-agents";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.engine_agents(&p.name, by)?.into()) }

    /// Every source calls came from — the local engine, remote engines, HTTP agents, the coding
    /// agents' hooks, the MCP gate — with the engine holding them and their agents, the most recent first.
    Sources(Nothing, none) -> [SourceSeen], 200 "Sources and engines seen, each with its agents (at most 20, the most recent)";
        errors []
        |app, _, _, by| { Ok(app.sources(by).await?.into()) }

    /// The kinds a new remote engine may be (`kind` in `POST /api/engines`), as the console's registry
    /// of engine kinds has them: the default first.
    EngineKinds(Nothing, none) -> [CallSource], 200 "The remote kinds, the default first";
        errors []
        |_app, _, _, _by| { Ok(crate::engine::kinds::remote_kinds().collect::<Vec<_>>().into()) }
}
