//! Newtype ids, so a run id cannot be passed where a tool call id belongs.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(transparent)]
        #[schema(value_type = String)]
        pub struct $name(String);

        impl $name {
            pub fn new(value: impl Into<String>) -> Self {
                Self(value.into())
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// One suspended-or-running agent run (Mastra's `runId`).
    RunId
);
id_type!(
    /// One tool call inside a run (Mastra's `toolCallId`).
    ToolCallId
);
id_type!(
    /// One engine: `local`, or a remote server's name.
    EngineId
);
id_type!(
    /// One agent of an engine.
    AgentId
);
id_type!(
    /// One queue entry: a paused call as the console stores it.
    ItemId
);
id_type!(
    /// One decision taken on a queue entry.
    DecisionId
);

id_type!(
    /// One "always allow" grant.
    GrantId
);

impl GrantId {
    pub fn generate() -> Self {
        Self(format!("g_{}", uuid::Uuid::now_v7().simple()))
    }
}

impl RunId {
    /// A fresh, time-ordered run id.
    pub fn generate() -> Self {
        Self(uuid::Uuid::now_v7().to_string())
    }
}

impl ItemId {
    pub fn generate() -> Self {
        Self(format!("q_{}", uuid::Uuid::now_v7().simple()))
    }
}

impl DecisionId {
    pub fn generate() -> Self {
        Self(format!("d_{}", uuid::Uuid::now_v7().simple()))
    }
}

impl EngineId {
    /// The in-process engine.
    pub fn local() -> Self {
        Self("local".into())
    }
}
