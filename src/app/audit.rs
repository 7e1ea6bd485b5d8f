//! The audit log as the history view and the exports show it (C6): each decision with its delivery,
//! and the whole log as JSON Lines or CSV. Read-only; the log itself is `store::audit`.

use super::query::{audit_filter, parse_cursor, AuditQuery};
use super::App;
use crate::domain::grant::GrantScope;
use crate::domain::{grade, CallSource, Cx, Error};
use crate::store::audit;
use crate::store::audit_query::{self, CallOrigin};
use futures::Stream;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A decision as the audit log recorded it, with what became of it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRecord {
    /// The `decision.*` entry: operator (`actor`), time, tool, fingerprint, and in `details` the
    /// arguments decided on and the verdict (reason, resume data).
    pub decision: audit::Entry,
    /// The newest `delivery.*` entry of the same call (`delivered`, `failed`, `deferred`, `retry`,
    /// `interrupted`), whose `details` hold the engine's answer (`outcome`) or the `error`; null
    /// while nothing was delivered.
    #[schema(required = true)]
    pub delivery: Option<audit::Entry>,
}

/// A page of decisions, newest first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionHistory {
    pub items: Vec<DecisionRecord>,
    #[schema(required = true)]
    pub next_cursor: Option<String>,
    /// The call each decision is about (its agent and source), by queue entry id.
    pub calls: BTreeMap<String, CallOrigin>,
    /// The grants the page names (a grant that decided), by id: what each allows.
    pub grants: BTreeMap<String, GrantName>,
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// One decision's action (`decision.approve`, `decision.decline`, `decision.edit`,
    /// `decision.resume`, `decision.expire`), or `decision` (every one).
    pub action: Option<String>,
    /// Only decisions on calls of this agent (its id).
    pub agent: Option<String>,
    /// Only decisions on calls from this source.
    #[serde(default, deserialize_with = "super::query::blank_is_none")]
    pub source: Option<CallSource>,
    /// From this instant on (RFC 3339, inclusive).
    pub from: Option<String>,
    /// Before this instant (RFC 3339, exclusive).
    pub until: Option<String>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// A grant as the history names it: what it allows and who made it, not its id alone.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantName {
    pub id: String,
    pub tool_name: String,
    pub scope: GrantScope,
    pub engine: String,
    /// Set unless the scope is the engine.
    #[schema(required = true)]
    pub agent_id: Option<String>,
    pub created_by: String,
    /// How many conditions on the arguments it has (0: every call in its scope).
    pub conditions: usize,
}

/// The ids of the grants an entry names: the grant that decided (its actor, `grant <id> (made by …)`),
/// or the grant it is about (`grantId`, `grant.id` in its details).
fn grants_named(e: &audit::Entry) -> impl Iterator<Item = String> + '_ {
    let by = e.actor.strip_prefix("grant ").and_then(|rest| rest.split(' ').next());
    let used = e.details.get("grantId").and_then(|v| v.as_str());
    let made = e.details.get("grant").and_then(|g| g.get("id")).and_then(|v| v.as_str());
    [by, used, made].into_iter().flatten().filter(|id| !id.is_empty()).map(str::to_owned)
}

/// The formats the audit log is exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// One JSON object per line, exactly the entries `GET /api/audit` answers (hashes verifiable).
    Jsonl,
    /// RFC 4180, one row per entry, `details` as JSON text; cells that a spreadsheet would run as a
    /// formula are prefixed with `'` (so this copy is for reading, the JSON Lines one for checking).
    Csv,
}

impl ExportFormat {
    pub fn parse(text: &str) -> Result<Self, Error> {
        match text {
            "jsonl" => Ok(Self::Jsonl),
            "csv" => Ok(Self::Csv),
            other => Err(Error::InvalidRequest(format!("unknown export format {other:?}: jsonl or csv"))),
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::Jsonl => "application/x-ndjson; charset=utf-8",
            Self::Csv => "text/csv; charset=utf-8",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Csv => "csv",
        }
    }

    /// `approval-console-audit-<UTC time>.<ext>`.
    pub fn file_name(self) -> String {
        format!("approval-console-audit-{}.{}", chrono::Utc::now().format("%Y%m%dT%H%M%SZ"), self.extension())
    }
}

/// Entries read per database round trip while exporting.
const EXPORT_BATCH: u32 = 1000;

const CSV_COLUMNS: [&str; 10] = ["seq", "at", "actor", "action", "queueItemId", "toolName", "fingerprint", "details", "prevHash", "hash"];

/// One CSV cell: text a spreadsheet would evaluate (starting with `=`, `+`, `-`, `@`, tab or CR)
/// gets a leading `'`; a cell holding a comma, quote, CR or LF is quoted, quotes doubled (RFC 4180).
pub fn csv_cell(text: &str) -> String {
    let guarded = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}") } else { text.to_owned() };
    if guarded.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

fn csv_row(cells: &[&str]) -> String {
    let mut line = cells.iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(",");
    line.push_str("\r\n");
    line
}

fn export_line(format: ExportFormat, e: &audit::Entry) -> String {
    match format {
        ExportFormat::Jsonl => {
            let mut line = serde_json::to_string(e).expect("audit entries serialize");
            line.push('\n');
            line
        }
        ExportFormat::Csv => {
            let (seq, details) = (e.seq.to_string(), e.details.to_string());
            let opt = |v: &Option<String>| v.clone().unwrap_or_default();
            let (item, tool, fingerprint) = (opt(&e.queue_item_id), opt(&e.tool_name), opt(&e.fingerprint));
            csv_row(&[&seq, &e.at, &e.actor, &e.action, &item, &tool, &fingerprint, &details, &e.prev_hash, &e.hash])
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub entries: Vec<audit::Entry>,
    #[schema(required = true)]
    pub next_cursor: Option<String>,
    /// The call each entry is about (its agent and source), by queue entry id.
    pub calls: BTreeMap<String, CallOrigin>,
    /// The grants the page names, by id: what each allows.
    pub grants: BTreeMap<String, GrantName>,
}

impl App {
    /// A page of the audit log, newest first, filtered as `q` says, with the calls and grants its
    /// entries name.
    pub async fn audit_page(&self, q: &AuditQuery, _by: &Cx<grade::Watch>) -> Result<AuditPage, Error> {
        let cursor = parse_cursor(q.cursor.as_deref())?;
        let page = audit_query::entries(&self.db, &q.filter()?, cursor, q.limit.unwrap_or(50)).await?;
        let grants = self.grant_names(page.entries.iter()).await?;
        Ok(AuditPage { next_cursor: page.next.map(|n| n.to_string()), entries: page.entries, calls: page.calls, grants })
    }

    /// What each grant the entries name allows, by id (a grant no longer stored is left out).
    async fn grant_names<'a>(&self, entries: impl Iterator<Item = &'a audit::Entry>) -> Result<BTreeMap<String, GrantName>, Error> {
        let ids: std::collections::BTreeSet<String> = entries.flat_map(grants_named).collect();
        let named = audit_query::grants(&self.db, ids).await?.into_iter().map(|g| {
            let name = GrantName {
                id: g.id.as_str().to_owned(),
                tool_name: g.tool_name,
                scope: g.scope,
                engine: g.engine,
                agent_id: g.agent_id,
                created_by: g.created_by,
                conditions: g.conditions.len(),
            };
            (name.id.clone(), name)
        });
        Ok(named.collect())
    }

    /// Walks the whole audit chain.
    pub async fn verify_audit(&self, _by: &Cx<grade::Watch>) -> Result<audit::Verification, Error> {
        audit::verify_chain(&self.db).await
    }

    /// A page of decisions from the audit log, newest first, each with its newest delivery entry.
    pub async fn decision_history(&self, q: &HistoryQuery, _by: &Cx<grade::Watch>) -> Result<DecisionHistory, Error> {
        let cursor = parse_cursor(q.cursor.as_deref())?;
        let filter = audit_filter(None, q.action.as_deref(), q.agent.as_deref(), q.source, q.from.as_deref(), q.until.as_deref())?;
        let (page, mut deliveries) = audit_query::decisions(&self.db, &filter, cursor, q.limit.unwrap_or(50)).await?;
        let grants = self.grant_names(page.entries.iter()).await?;
        let items = page
            .entries
            .into_iter()
            .map(|decision| {
                // One decision per queue entry, ever (decisions.queue_item_id is unique): its deliveries are this decision's.
                let delivery = decision.queue_item_id.as_deref().and_then(|id| deliveries.remove(id));
                DecisionRecord { decision, delivery }
            })
            .collect();
        Ok(DecisionHistory { items, next_cursor: page.next.map(|n| n.to_string()), calls: page.calls, grants })
    }

    /// The audit log, oldest first, in `format`, as chunks of text (a header first for CSV). It
    /// holds the entries that existed when it started: entries appended meanwhile are left out, so
    /// the export ends on an entry whose hash `audit_head` recorded at some point. Reads in batches,
    /// taking a connection for each, so a long export does not hold the database.
    pub fn export_audit(
        &self,
        format: ExportFormat,
        _by: &Cx<grade::Operator>,
    ) -> Result<impl Stream<Item = Result<String, Error>> + Send + 'static, Error> {
        let db = self.db.clone();
        Ok(async_stream::try_stream! {
            if format == ExportFormat::Csv {
                yield csv_row(&CSV_COLUMNS);
            }
            let head = audit::newest_seq(&db).await?;
            let mut after = 0;
            while after < head {
                let batch = audit::entries_between(&db, after, head, EXPORT_BATCH).await?;
                let Some(last) = batch.last() else { break };
                after = last.seq;
                yield batch.iter().map(|e| export_line(format, e)).collect::<String>();
            }
        })
    }

    /// Writes the whole export as a new file in `dir` (named by [`ExportFormat::file_name`], `-2`,
    /// `-3`, … added rather than overwriting a file) and answers its path. The desktop window's
    /// export: a download inside WebKitGTK is not something the operator can find reliably. The file
    /// is created owner-only (0600), whatever the umask: the log names operators, tools and arguments.
    pub async fn export_audit_to(
        &self,
        dir: &std::path::Path,
        format: ExportFormat,
        by: &Cx<grade::Operator>,
    ) -> Result<std::path::PathBuf, Error> {
        use futures::TryStreamExt;
        use tokio::io::AsyncWriteExt;
        let io = |what: &str, path: &std::path::Path, e: std::io::Error| Error::Storage(format!("cannot {what} {}: {e}", path.display()));
        tokio::fs::create_dir_all(dir).await.map_err(|e| io("create", dir, e))?;
        let name = format.file_name();
        let (stem, ext) = name.rsplit_once('.').unwrap_or((&name, ""));
        let mut n = 1;
        let (path, file) = loop {
            let path = dir.join(if n == 1 { name.clone() } else { format!("{stem}-{n}.{ext}") });
            match tokio::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path).await {
                Ok(file) => break (path, file),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(io("create", &path, e)),
            }
        };
        let mut out = tokio::io::BufWriter::new(file);
        let mut chunks = std::pin::pin!(self.export_audit(format, by)?);
        let written: Result<(), Error> = async {
            while let Some(chunk) = chunks.try_next().await? {
                out.write_all(chunk.as_bytes()).await.map_err(|e| io("write", &path, e))?;
            }
            out.flush().await.map_err(|e| io("write", &path, e))?;
            out.get_ref().sync_all().await.map_err(|e| io("write", &path, e))
        }
        .await;
        if let Err(e) = written {
            // No half-written export left behind to be mistaken for a whole one.
            let _ = tokio::fs::remove_file(&path).await;
            return Err(e);
        }
        Ok(path)
    }

    /// The whole export as one text (the desktop window and the CLI's tests; HTTP streams it).
    pub async fn export_audit_text(&self, format: ExportFormat, by: &Cx<grade::Operator>) -> Result<String, Error> {
        use futures::TryStreamExt;
        self.export_audit(format, by)?.try_collect::<Vec<String>>().await.map(|chunks| chunks.concat())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_guarded_against_formulas() {
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("two\nlines"), "\"two\nlines\"");
        for (cell, want) in [("=1+2", "'=1+2"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx")] {
            assert_eq!(csv_cell(cell), want, "{cell:?}");
        }
        assert_eq!(csv_cell("\rx"), "\"'\rx\"");
        assert_eq!(csv_cell("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
        assert_eq!(csv_cell("a=b"), "a=b", "only a leading sign is a formula");
        assert_eq!(csv_cell(""), "");
    }
}
