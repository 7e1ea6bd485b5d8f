//! `GET /api/stats?days=N` (the desktop's `stats`): the team's figures over the last N days — how
//! the period's calls were decided, time to decision (p50, p90) per tool and per operator, and how
//! many calls were pending at the end of each hour.

use super::App;
use crate::domain::Error;
use crate::domain::{grade, Cx};
use crate::store::stats::{self, PendingChanges, Timed};
use chrono::{DateTime, Duration, DurationRound, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The period when none is asked for, in days.
pub const DEFAULT_DAYS: u32 = 7;
/// The longest period, in days.
pub const MAX_DAYS: u32 = 90;
/// At most this many decisions (the newest of the period) are read for the times to decision: the
/// percentiles of a busier period are those of its newest 200,000 decisions (the counts are exact
/// whatever the period holds). A tool or operator none of whose decisions is among them has no
/// times (`null`).
pub const MAX_TIMED: i64 = 200_000;

/// `?days=N`: the period, in days up to now.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// 1–90, default 7.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 90)]
    #[serde(default, deserialize_with = "number_or_text")]
    pub days: Option<String>,
}

/// `days` as the URL writes it (text) or as the window sends it (a JSON number); [`StatsQuery::days`]
/// judges it.
fn number_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Days {
        Number(serde_json::Number),
        Text(String),
    }
    Ok(Option::<Days>::deserialize(d)?.map(|days| match days {
        Days::Number(n) => n.to_string(),
        Days::Text(t) => t,
    }))
}

impl StatsQuery {
    /// The number of days asked for ([`DEFAULT_DAYS`] without `days`); anything but a whole
    /// number is `invalid_request` (the range is checked by [`App::stats`]).
    pub fn days(&self) -> Result<u32, Error> {
        let Some(text) = self.days.as_deref() else { return Ok(DEFAULT_DAYS) };
        let bad = || Error::InvalidRequest(format!("days must be a whole number of days from 1 to {MAX_DAYS}; got {text:?}"));
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        text.parse().map_err(|_| bad())
    }
}

/// The team's figures over a period: from `since` (`days` before `until`) to `until` (now).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeamStats {
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// The decisions taken in the period (`decided_at >= since`), by outcome.
    pub decisions: DecisionCounts,
    /// Per tool with decisions in the period: most decided first, then by name.
    pub by_tool: Vec<ToolStats>,
    /// Per operator (as the audit log names them: `alice (web)`), expiries left out: most
    /// decisions first, then by name.
    pub by_operator: Vec<OperatorStats>,
    /// Calls pending at the end of each clock hour of the period, oldest first; the last point is
    /// `until` (the hour under way).
    pub pending_over_time: Vec<PendingPoint>,
}

/// The period's decisions by outcome: `total` counts them all. An edited approval is `approved`;
/// `declined` leaves out `expired` (declined by the console because nobody decided in time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DecisionCounts {
    pub approved: u64,
    pub declined: u64,
    pub expired: u64,
    pub resumed: u64,
    pub total: u64,
}

/// One tool's decisions in the period. The times are seconds from the call pausing to its decision
/// (nearest rank), expiries included; `null` only when none of its decisions is among the newest
/// 200,000 of the period.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolStats {
    pub tool: String,
    pub decided: u64,
    #[schema(required = true)]
    pub p50_secs: Option<f64>,
    #[schema(required = true)]
    pub p90_secs: Option<f64>,
    /// Declined by an operator (expiries not included).
    pub declined: u64,
    pub expired: u64,
}

/// One operator's decisions in the period, with the seconds from the call pausing to the decision
/// (nearest rank; `null` only when none of them is among the newest 200,000 of the period).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperatorStats {
    pub operator: String,
    pub decided: u64,
    #[schema(required = true)]
    pub p50_secs: Option<f64>,
    #[schema(required = true)]
    pub p90_secs: Option<f64>,
}

/// The calls pending at `at`: paused by then, and not decided (or gone) by then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PendingPoint {
    pub at: DateTime<Utc>,
    pub pending: u64,
}

impl App {
    /// The team's figures over the last `days` days (1–[`MAX_DAYS`]) up to now; viewers,
    /// operators and admins.
    ///
    /// Bounded by the period, not by the size of the queue: the counts and the hourly series are
    /// counted in SQL, from indexes, over the period's decisions and changes (`store::stats`), and
    /// at most [`MAX_TIMED`] decisions are read for the percentiles. Reads only, on one pooled
    /// connection; the writer is never waited for.
    pub async fn stats(&self, days: u32, _by: &Cx<grade::Viewer>) -> Result<TeamStats, Error> {
        if !(1..=MAX_DAYS).contains(&days) {
            return Err(Error::InvalidRequest(format!("days must be a whole number of days from 1 to {MAX_DAYS}; got {days}")));
        }
        // To the microsecond, as timestamps are stored.
        let until = crate::store::now().trunc_subsecs(6);
        let since = until - Duration::days(i64::from(days));
        let stats::Period { tools, operators, timed, pending } = stats::period(&self.db, since, until, MAX_TIMED).await?;

        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        let mut decisions = DecisionCounts::default();
        for t in &tools {
            decisions.approved += count(t.approved);
            decisions.declined += count(t.declined);
            decisions.expired += count(t.expired);
            decisions.resumed += count(t.resumed);
            decisions.total += count(t.decided);
        }
        let (mut tool_times, mut operator_times) = times(&timed);
        let mut by_tool: Vec<ToolStats> = tools
            .into_iter()
            .map(|t| {
                let (p50_secs, p90_secs) = percentiles(tool_times.remove(&t.tool));
                ToolStats {
                    decided: count(t.decided),
                    p50_secs,
                    p90_secs,
                    declined: count(t.declined),
                    expired: count(t.expired),
                    tool: t.tool,
                }
            })
            .collect();
        by_tool.sort_by(|a, b| b.decided.cmp(&a.decided).then_with(|| a.tool.cmp(&b.tool)));
        let mut by_operator: Vec<OperatorStats> = operators
            .into_iter()
            .map(|(operator, decided)| {
                let (p50_secs, p90_secs) = percentiles(operator_times.remove(&operator));
                OperatorStats { operator, decided: count(decided), p50_secs, p90_secs }
            })
            .collect();
        by_operator.sort_by(|a, b| b.decided.cmp(&a.decided).then_with(|| a.operator.cmp(&b.operator)));
        let pending_over_time = pending_series(since, until, &pending);
        Ok(TeamStats { since, until, decisions, by_tool, by_operator, pending_over_time })
    }
}

/// The times to decision per tool (every decision) and per operator (expiries left out).
fn times(timed: &[Timed]) -> (HashMap<String, Vec<f64>>, HashMap<String, Vec<f64>>) {
    let (mut tools, mut operators): (HashMap<String, Vec<f64>>, HashMap<String, Vec<f64>>) = Default::default();
    for t in timed {
        tools.entry(t.tool.clone()).or_default().push(t.secs);
        if !t.expired {
            operators.entry(t.operator.clone()).or_default().push(t.secs);
        }
    }
    (tools, operators)
}

/// p50 and p90 of `secs` by nearest rank; `None` without any.
fn percentiles(secs: Option<Vec<f64>>) -> (Option<f64>, Option<f64>) {
    let mut secs = secs.unwrap_or_default();
    secs.sort_by(f64::total_cmp);
    (nearest_rank(&secs, 50), nearest_rank(&secs, 90))
}

/// The `p`th percentile of `sorted` (ascending) by nearest rank: the value at rank ⌈p/100 · n⌉.
fn nearest_rank(sorted: &[f64], p: usize) -> Option<f64> {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// One point per clock hour ending after `since` and before `until`, then `until` itself: the calls
/// pending then, from those pending at `since` and the changes of each hour.
fn pending_series(since: DateTime<Utc>, until: DateTime<Utc>, changes: &PendingChanges) -> Vec<PendingPoint> {
    let hour = Duration::hours(1);
    let first = since.duration_trunc(hour).unwrap_or(since) + hour;
    let mut ends: Vec<DateTime<Utc>> = std::iter::successors(Some(first), |t| Some(*t + hour)).take_while(|t| *t < until).collect();
    ends.push(until);
    let last = ends.len() - 1;
    let mut pending = changes.at_since;
    let mut hours = changes.by_hour_end.iter().peekable();
    ends.iter()
        .enumerate()
        .map(|(i, &at)| {
            // The changes are those up to `until`: the last hour's (its clock hour ends after
            // `until`) all count at `until`.
            while let Some((_, c)) = hours.next_if(|(end, _)| i == last || **end <= at) {
                pending += c.paused - c.ended;
            }
            PendingPoint { at, pending: u64::try_from(pending).unwrap_or(0) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::stats::HourChanges;

    #[test]
    fn nearest_rank_takes_the_value_at_the_rounded_up_rank() {
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!((nearest_rank(&ten, 50), nearest_rank(&ten, 90)), (Some(5.0), Some(9.0)));
        assert_eq!((nearest_rank(&[7.0], 50), nearest_rank(&[7.0], 90)), (Some(7.0), Some(7.0)));
        assert_eq!((nearest_rank(&[1.0, 2.0, 3.0], 50), nearest_rank(&[1.0, 2.0, 3.0], 90)), (Some(2.0), Some(3.0)));
        assert_eq!(nearest_rank(&[], 50), None);
        assert_eq!(percentiles(Some(vec![30.0, 10.0, 20.0, 40.0])), (Some(20.0), Some(40.0)), "sorted first");
    }

    #[test]
    fn days_must_be_a_whole_number() {
        let q = |d: Option<&str>| StatsQuery { days: d.map(str::to_owned) }.days();
        assert_eq!(q(None).unwrap(), DEFAULT_DAYS);
        assert_eq!(q(Some("30")).unwrap(), 30);
        for bad in ["", "abc", "1.5", "-1", "+5", " 7", "99999999999"] {
            assert!(matches!(q(Some(bad)), Err(Error::InvalidRequest(m)) if m.contains("1 to 90")), "{bad:?}");
        }
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn the_series_has_a_point_per_hour_end_and_one_at_until() {
        let (since, until) = (at("2026-12-01T10:20:00Z"), at("2026-12-01T13:05:00Z"));
        let mut changes = PendingChanges { at_since: 2, by_hour_end: Default::default() };
        changes.by_hour_end.insert(at("2026-12-01T11:00:00Z"), HourChanges { paused: 3, ended: 1 });
        changes.by_hour_end.insert(at("2026-12-01T13:00:00Z"), HourChanges { paused: 0, ended: 2 });
        changes.by_hour_end.insert(at("2026-12-01T14:00:00Z"), HourChanges { paused: 1, ended: 0 });
        let points = pending_series(since, until, &changes);
        let got: Vec<(String, u64)> = points.iter().map(|p| (p.at.to_rfc3339(), p.pending)).collect();
        assert_eq!(
            got,
            [
                ("2026-12-01T11:00:00+00:00".to_owned(), 4),
                ("2026-12-01T12:00:00+00:00".to_owned(), 4),
                ("2026-12-01T13:00:00+00:00".to_owned(), 2),
                ("2026-12-01T13:05:00+00:00".to_owned(), 3),
            ]
        );
        // A period of whole hours: one point per hour, the last at until.
        let points = pending_series(at("2026-12-01T10:00:00Z"), at("2026-12-02T10:00:00Z"), &PendingChanges::default());
        assert_eq!(points.len(), 24);
        assert_eq!(points.last().unwrap().at, at("2026-12-02T10:00:00Z"));
        assert_eq!(pending_series(since, since + Duration::days(90), &PendingChanges::default()).len(), 90 * 24 + 1);
    }
}
