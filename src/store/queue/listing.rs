//! The queue view's listing: filters, search, pages in either order, and counts by state.

use super::row::{entry_from_row, kind_str, state_str, COLUMNS, EXPIRED};
use super::Entry;
use crate::domain::{CallKind, CallSource, Error, ItemState};
use crate::store::Dialect;
use sqlx::{AnyConnection, Row};

/// Filters of a queue listing; `None` means any.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// `None`: every state.
    pub state: Option<ItemState>,
    /// When not empty: only entries in one of these states (as stored, so a state the code does not
    /// know yet simply matches nothing). Applies together with `state`.
    pub states: Vec<&'static str>,
    /// `Some(true)`: only entries whose decision was an expiry (declined because nobody decided in
    /// time); `Some(false)`: only entries without such a decision.
    pub expired: Option<bool>,
    pub engine: Option<String>,
    /// Only calls from this source (stored with each call).
    pub source: Option<CallSource>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    pub kind: Option<CallKind>,
    pub run: Option<String>,
    pub thread: Option<String>,
    /// Search words: see [`Search`].
    pub search: Option<Search>,
    /// Oldest first instead of newest first.
    pub oldest_first: bool,
}

/// Words an entry must all contain, case-insensitively, in its tool name, agent id, agent name or
/// the JSON text of its arguments (as stored: compact, keys in their order).
///
/// Words of three characters or more are looked up in the `queue_search` FTS5 trigram index (fast
/// at any queue size; Unicode case folding). Shorter words cannot use trigrams: they are matched
/// with `LIKE` (ASCII case folding only) on the rows the long words left, or on every row if there
/// are none.
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    words: Vec<String>,
}

impl Search {
    /// Most words in one search.
    pub const MAX_WORDS: usize = 8;
    /// Longest search text, in characters.
    pub const MAX_CHARS: usize = 256;

    /// The words of `text` (split on whitespace); `Ok(None)` when there are none.
    pub fn parse(text: &str) -> Result<Option<Self>, Error> {
        if text.chars().count() > Self::MAX_CHARS {
            return Err(Error::InvalidRequest(format!("the search is longer than {} characters", Self::MAX_CHARS)));
        }
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        if words.len() > Self::MAX_WORDS {
            return Err(Error::InvalidRequest(format!("a search has at most {} words", Self::MAX_WORDS)));
        }
        Ok((!words.is_empty()).then_some(Self { words }))
    }

    /// The FTS5 query of the long words (each a quoted phrase, so nothing in it is query syntax).
    fn fts_query(&self) -> Option<String> {
        let phrases: Vec<String> =
            self.words.iter().filter(|w| w.chars().count() >= 3).map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect();
        (!phrases.is_empty()).then(|| phrases.join(" AND "))
    }

    /// `LIKE` patterns of the words shorter than `shorter_than` characters (every word with
    /// 0), `\` escaping the wildcards.
    fn like_patterns(&self, shorter_than: usize) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| shorter_than == 0 || w.chars().count() < shorter_than)
            .map(|w| format!("%{}%", w.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")))
            .collect()
    }
}

/// One page, in the filter's order; `next_cursor` continues after the last entry.
#[derive(Clone, Debug)]
pub struct Page {
    pub entries: Vec<Entry>,
    pub next_cursor: Option<i64>,
}

/// A value bound to a query built at run time.
enum Bind {
    Text(String),
    Int(i64),
}

/// How the rows of a listing are reached.
#[derive(Clone, Copy, PartialEq)]
enum Drive {
    /// Pages: queue rows (through the search index when searching, which hands them over in
    /// `seq` order so a page stops early), each with its decision if any (`d`).
    Entries,
    /// Counting every entry: queue rows only, so the state indexes answer.
    Counts,
    /// Counting expired entries: from the decisions (few are expiries), each to its queue row; the
    /// search is checked per row.
    Expired,
}

/// The `FROM` and `WHERE` of a listing under `filter` (its state conditions only for
/// [`Drive::Entries`]), the column that orders it (`seq`, or the search index's rowid, the same
/// number), and the values to bind.
fn select_from(filter: &Filter, drive: Drive, dialect: Dialect) -> (String, &'static str, Vec<Bind>) {
    let mut binds = Vec::new();
    // SQLite searches its trigram index (FTS5) for the long words; PostgreSQL its trigram index
    // (pg_trgm) on `search_text` for every word, through ILIKE.
    let fts = match dialect {
        Dialect::Sqlite => filter.search.as_ref().and_then(Search::fts_query),
        Dialect::Postgres => None,
    };
    let (mut sql, order_col) = match (drive, fts) {
        (Drive::Expired, fts) => {
            // SQLite: CROSS JOIN keeps the decisions as the outer loop (few are expiries).
            let join = if dialect == Dialect::Sqlite { "CROSS JOIN" } else { "JOIN" };
            let mut sql = format!(" FROM decisions d {join} queue_items q ON q.id = d.queue_item_id WHERE d.kind = 'decline' AND d.data IS NOT NULL AND {EXPIRED}");
            if let Some(query) = fts {
                sql.push_str(" AND EXISTS (SELECT 1 FROM queue_search WHERE queue_search MATCH ? AND rowid = q.seq)");
                binds.push(Bind::Text(query));
            }
            (sql, "q.seq")
        }
        (drive, Some(query)) => {
            binds.push(Bind::Text(query));
            let decisions = if drive == Drive::Entries { " LEFT JOIN decisions d ON d.queue_item_id = q.id" } else { "" };
            (format!(" FROM queue_search s JOIN queue_items q ON q.seq = s.rowid{decisions} WHERE queue_search MATCH ?"), "s.rowid")
        }
        (Drive::Entries, None) => (" FROM queue_items q LEFT JOIN decisions d ON d.queue_item_id = q.id WHERE TRUE".to_owned(), "q.seq"),
        (Drive::Counts, None) => (" FROM queue_items q WHERE TRUE".to_owned(), "q.seq"),
    };
    let with_state = drive == Drive::Entries;
    let mut add = |clause: &str, value: Option<String>| {
        if let Some(v) = value {
            sql.push_str(clause);
            binds.push(Bind::Text(v));
        }
    };
    if with_state {
        add(" AND q.state = ?", filter.state.map(|s| state_str(s).to_owned()));
    }
    add(" AND q.engine = ?", filter.engine.clone());
    add(" AND q.agent_id = ?", filter.agent.clone());
    add(" AND q.tool_name = ?", filter.tool.clone());
    add(" AND q.kind = ?", filter.kind.map(|k| kind_str(k).to_owned()));
    add(" AND q.run_id = ?", filter.run.clone());
    add(" AND q.thread_id = ?", filter.thread.clone());
    add(" AND q.source = ?", filter.source.map(|s| s.as_str().to_owned()));
    if with_state && !filter.states.is_empty() {
        sql.push_str(&format!(" AND q.state IN ({})", vec!["?"; filter.states.len()].join(", ")));
        binds.extend(filter.states.iter().map(|s| Bind::Text((*s).to_owned())));
    }
    match filter.expired {
        Some(true) if with_state => sql.push_str(&format!(" AND {EXPIRED}")),
        Some(false) if with_state => sql.push_str(&format!(" AND NOT COALESCE({EXPIRED}, FALSE)")),
        _ => {}
    }
    if dialect == Dialect::Postgres {
        for pattern in filter.search.as_ref().map(|s| s.like_patterns(0)).unwrap_or_default() {
            sql.push_str(" AND q.search_text ILIKE ? ESCAPE '\\'");
            binds.push(Bind::Text(pattern));
        }
        return (sql, order_col, binds);
    }
    for pattern in filter.search.as_ref().map(|s| s.like_patterns(3)).unwrap_or_default() {
        sql.push_str(
            " AND (q.tool_name LIKE ? ESCAPE '\\' OR q.agent_id LIKE ? ESCAPE '\\' OR COALESCE(q.agent_name, '') LIKE ? ESCAPE '\\' OR q.args LIKE ? ESCAPE '\\')",
        );
        binds.extend((0..4).map(|_| Bind::Text(pattern.clone())));
    }
    (sql, order_col, binds)
}

fn bind_all<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    binds: &'q [Bind],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for b in binds {
        query = match b {
            Bind::Text(t) => query.bind(t.as_str()),
            Bind::Int(i) => query.bind(*i),
        };
    }
    query
}

/// A page of entries, newest first (oldest first with `filter.oldest_first`), after `cursor` (a
/// `seq` from an earlier page of the same order).
pub async fn list(conn: &mut AnyConnection, filter: &Filter, cursor: Option<i64>, limit: u32) -> Result<Page, Error> {
    let (from, order_col, mut binds) = select_from(filter, Drive::Entries, Dialect::of(conn));
    let (cmp, dir) = if filter.oldest_first { (">", "ASC") } else { ("<", "DESC") };
    let mut sql = format!("{COLUMNS}{from}");
    if let Some(c) = cursor {
        sql.push_str(&format!(" AND {order_col} {cmp} ?"));
        binds.push(Bind::Int(c));
    }
    sql.push_str(&format!(" ORDER BY {order_col} {dir} LIMIT ?"));
    let limit = limit.clamp(1, 500);
    binds.push(Bind::Int(i64::from(limit) + 1));
    let sql = crate::store::numbered(&sql);
    let rows = bind_all(sqlx::query(&sql), &binds).fetch_all(&mut *conn).await?;
    let more = rows.len() > limit as usize;
    let rows = &rows[..rows.len().min(limit as usize)];
    let next_cursor = if more { rows.last().map(|r| r.try_get::<i64, _>("seq")).transpose()? } else { None };
    let entries = rows.iter().map(entry_from_row).collect::<Result<_, _>>()?;
    Ok(Page { entries, next_cursor })
}

/// How many entries match `filter` (its `state`, `states` and `expired` ignored) in each state, and
/// whether their decision was an expiry: `(state as stored, expired, count)`; empty groups left out.
///
/// Two queries: every entry by state (on the state indexes, without the decisions), then the
/// expired ones by state (from the decisions: declines with data), taken out of the first counts.
pub(in crate::store) async fn count_by_state(conn: &mut AnyConnection, filter: &Filter) -> Result<Vec<(String, bool, i64)>, Error> {
    let dialect = Dialect::of(conn);
    let (from, _, binds) = select_from(filter, Drive::Counts, dialect);
    let sql = crate::store::numbered(&format!("SELECT q.state AS state, COUNT(*) AS n{from} GROUP BY q.state"));
    let rows = bind_all(sqlx::query(&sql), &binds).fetch_all(&mut *conn).await?;
    let mut counts: Vec<(String, bool, i64)> =
        rows.iter().map(|r| Ok((r.try_get("state")?, false, r.try_get("n")?))).collect::<Result<_, Error>>()?;
    let (from, _, binds) = select_from(filter, Drive::Expired, dialect);
    let sql = crate::store::numbered(&format!("SELECT q.state AS state, COUNT(*) AS n{from} GROUP BY q.state"));
    for row in bind_all(sqlx::query(&sql), &binds).fetch_all(&mut *conn).await? {
        let (state, n): (String, i64) = (row.try_get("state")?, row.try_get("n")?);
        if let Some(all) = counts.iter_mut().find(|(s, _, _)| *s == state) {
            all.2 -= n;
        }
        counts.push((state, true, n));
    }
    counts.retain(|(_, _, n)| *n > 0);
    Ok(counts)
}
