//! LangGraph servers as remote engines (issue 17). So far the part that needs no connection: how an
//! interrupted thread becomes queue calls and a decision the resume value its graph reads
//! ([`listing`]). The engine that syncs threads and delivers decisions comes next.

pub mod listing;
