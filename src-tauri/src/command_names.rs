// The window's commands: the operations the catalog (`src/domain/catalog.rs`, the one list of every
// operation) marks `window`. `build.rs` includes this file: it declares them to Tauri (so the ACL
// applies) and writes the permission set that `capabilities/main-window.json` grants; `lib.rs`
// registers a handler for each (`commands::<name>`) from the same catalog; the UI's `TAURI_COMMANDS` are
// read from the same catalog (`ui/src/lib/backend/operations.gen.ts`, `approval-console manifest --typescript`).

/// Reads the catalog's lines (`Variant name: METHOD "path" => Grade @ listeners, window;`) and calls
/// `$then!(name, …)` with the names of those marked `window`. Each place that needs the list defines
/// `operations!` as a call of this and includes the catalog.
macro_rules! window_commands {
    (@go $then:ident [$($found:ident)*]) => {
        $then!($($found),*)
    };
    (@go $then:ident [$($found:ident)*] $variant:ident $name:ident : $method:ident $($path:literal)? => $grade:ident $(@ $served:ident)?, window; $($rest:tt)*) => {
        window_commands!(@go $then [$($found)* $name] $($rest)*)
    };
    (@go $then:ident [$($found:ident)*] $variant:ident $name:ident : $method:ident $($path:literal)? => $grade:ident $(@ $served:ident)?; $($rest:tt)*) => {
        window_commands!(@go $then [$($found)*] $($rest)*)
    };
}

macro_rules! names {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

/// Every command the window may call.
pub const COMMANDS: &[&str] = {
    macro_rules! operations {
        ($($line:tt)*) => { window_commands!(@go names [] $($line)*) };
    }
    include!("../../src/domain/catalog.rs")
};
