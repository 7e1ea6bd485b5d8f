//! The rules an "always allow" grant's approvals wrote back to coding agents (issue 47), one row per
//! grant and distinct rule, recorded with the `grant.used` entry that names it. The audit log holds
//! the same rules, but finding a grant's there means reading every `grant.used` entry's details (the
//! log has no grant column and no index but the queue item's); this small record lets the grants
//! view read them all in one query and revoking read one grant's.

use super::sql::{sql, Sql};
use super::{parse_json, ts, Db};
use crate::domain::session_rule::AgentRule;
use crate::domain::{Error, GrantId};
use chrono::{DateTime, Utc};
use std::collections::HashMap;

/// Records that `grant` wrote `rule` back (once per distinct rule).
pub(in crate::store) async fn record(conn: &mut impl Sql, grant: &GrantId, rule: &AgentRule, at: DateTime<Utc>) -> Result<(), Error> {
    let text = serde_json::to_string(rule).map_err(|e| Error::Storage(format!("unwritable rule: {e}")))?;
    sql("INSERT INTO grant_rules (grant_id, rule, first_at) VALUES ($1, $2, $3) ON CONFLICT (grant_id, rule) DO NOTHING")
        .bind(grant.as_str())
        .bind(text)
        .bind(ts(at))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

fn rule_of(text: &str) -> Result<AgentRule, Error> {
    serde_json::from_value(parse_json(text)?).map_err(|e| Error::Storage(format!("unreadable grant rule: {e}")))
}

/// Every grant's rules written back, by grant id, each grant's in the order first written: one query.
pub async fn all(db: &Db) -> Result<HashMap<String, Vec<AgentRule>>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql("SELECT grant_id, rule FROM grant_rules ORDER BY grant_id, first_at, rule").fetch_all(&mut *conn).await?;
    let mut by_grant: HashMap<String, Vec<AgentRule>> = HashMap::new();
    for r in &rows {
        use super::cells::Cells;
        by_grant.entry(r.cell::<String>("grant_id")?).or_default().push(rule_of(&r.cell::<String>("rule")?)?);
    }
    Ok(by_grant)
}

/// The rules `grant` wrote back, in the order first written.
pub async fn of_grant(db: &Db, grant: &GrantId) -> Result<Vec<AgentRule>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows =
        sql("SELECT rule FROM grant_rules WHERE grant_id = $1 ORDER BY first_at, rule").bind(grant.as_str()).fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|r| {
            use super::cells::Cells;
            rule_of(&r.cell::<String>("rule")?)
        })
        .collect()
}
