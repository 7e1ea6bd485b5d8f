/**
 * The Team view's data and charts, apart from its markup (`TeamView.svelte`): the wire type of
 * `GET /api/stats?days=N` (Tauri: `stats` with `{days}`), the totals and their shares, and the
 * Chart.js configurations built from an answer. Pure: the words, the number formats and the colours
 * are passed in, so each is tested without a canvas (`team.test.ts`).
 *
 * Tool and operator names are untrusted: on a canvas they are drawn as text (Chart.js `fillText`),
 * with hidden characters shown as `\u{…}` escapes (a bidi override must not reorder a label); the
 * tables beside the charts show them with `MarkedText`.
 */
import type { ChartConfiguration, TooltipItem } from 'chart.js';
import type { PendingPoint, TeamStats } from './backend/backend';
import { markedParts } from './confusables';

// The wire types: the server's schemas (its OpenAPI document), aliased in `backend/backend.ts`.
export type { DecisionCounts, OperatorStats, PendingPoint, TeamStats, ToolStats } from './backend/backend';

/** The periods the view offers, in days (the server takes 1 to 90). */
export const STATS_PERIODS = [1, 7, 30] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];
/** The period shown first (the server's default too). */
export const DEFAULT_STATS_DAYS: StatsPeriod = 7;

export type TeamTotals = {
  decided: number;
  declined: number;
  expired: number;
  /** Of all decisions (0–1); `null` when there were none. */
  declinedShare: number | null;
  expiredShare: number | null;
};

/** A count as the server sent it, or 0 when it is not a count (the view never shows `NaN`). */
function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/** Seconds as the server sent them, or `null` (a gap in a chart, `—` in a table). */
export function secs(n: unknown): number | null {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

export function teamTotals(stats: TeamStats): TeamTotals {
  const d = stats.decisions;
  const decided = count(d?.total);
  const declined = count(d?.declined);
  const expired = count(d?.expired);
  return {
    decided,
    declined,
    expired,
    declinedShare: decided > 0 ? declined / decided : null,
    expiredShare: decided > 0 ? expired / decided : null,
  };
}

/** `0.1667` → `16.7%` in `language`; `null` → `—`. */
export function formatShare(share: number | null, language: string): string {
  if (share === null) return '—';
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(share);
}

/** Whether the period has any decision to show (totals, per tool, per operator). */
export function hasDecisions(stats: TeamStats): boolean {
  return count(stats.decisions?.total) > 0 || (stats.byTool ?? []).length > 0 || (stats.byOperator ?? []).length > 0;
}

/** Whether any call was pending at the end of an hour of the period. */
export function hasPending(stats: TeamStats): boolean {
  return (stats.pendingOverTime ?? []).some((p) => count(p.pending) > 0);
}

/** Labels longer than this are cut on the chart's axis (the tooltip and the table show them whole). */
export const LABEL_MAX = 28;

/** An untrusted name as a chart draws it: hidden characters as `\u{…}` escapes. */
export function chartName(name: string): string {
  return markedParts(String(name ?? ''))
    .map((p) => p.text)
    .join('');
}

/** A name cut to `LABEL_MAX` characters (code points) for an axis. */
export function shortLabel(label: string): string {
  const chars = [...label];
  return chars.length > LABEL_MAX ? chars.slice(0, LABEL_MAX - 1).join('') + '…' : label;
}

/** The colours and font a chart is drawn with (read from the page's palette by `charts.ts`). */
export type ChartTheme = {
  /** The first and second series (p50, p90; the pending line uses the first). */
  series: [string, string];
  /** Axis labels and the legend. */
  text: string;
  /** Grid lines. */
  grid: string;
  font: string;
  /** `false` when the operator asks for reduced motion. */
  animate: boolean;
};

/** The words and formats a chart needs, in the console's language. */
export type ChartWords = {
  p50: string;
  p90: string;
  pending: string;
  /** Seconds in words (`5 min`). */
  duration: (secs: number) => string;
  /** A count of pending calls, for the tooltip (`4 pending`). */
  pendingAt: (n: number) => string;
  /** An hour's end, for the x axis and the tooltip. */
  hour: (iso: string) => string;
};

/** One bar of a time-to-decision chart: a tool or an operator. */
export type TimeRow = { name: string; p50Secs: number | null; p90Secs: number | null };

export const toolRows = (stats: TeamStats): TimeRow[] =>
  (stats.byTool ?? []).map((t) => ({ name: t.tool, p50Secs: secs(t.p50Secs), p90Secs: secs(t.p90Secs) }));

export const operatorRows = (stats: TeamStats): TimeRow[] =>
  (stats.byOperator ?? []).map((o) => ({ name: o.operator, p50Secs: secs(o.p50Secs), p90Secs: secs(o.p90Secs) }));

/** The height (rem) of a horizontal bar chart of `rows` bars (legend and axis included): the bars keep their size however many there are. */
export function barChartHeight(rows: number): number {
  return Math.max(9, 5 + rows * 2.25);
}

/** Steps of a duration axis that read well as words: seconds, minutes, hours, days. */
const DURATION_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 432_000, 864_000];

/** The step of a duration axis from 0 to `maxSecs`: at most 5 steps, each a round duration (`10 min`, not `8 min 20 s`). */
export function durationStep(maxSecs: number): number {
  const max = Number.isFinite(maxSecs) && maxSecs > 0 ? maxSecs : 1;
  return DURATION_STEPS.find((step) => max / step <= 5) ?? Math.ceil(max / 5 / 86_400) * 86_400;
}

const font = (theme: ChartTheme) => ({ family: theme.font, size: 12 });

/**
 * Time to decision as horizontal bars, one row per tool or operator, p50 and p90 side by side. The
 * value axis and the tooltips read as durations.
 */
export function timeToDecisionChart(rows: readonly TimeRow[], words: ChartWords, theme: ChartTheme): ChartConfiguration<'bar', (number | null)[], string> {
  const names = rows.map((r) => chartName(r.name));
  const longest = Math.max(0, ...rows.flatMap((r) => [r.p50Secs ?? 0, r.p90Secs ?? 0]));
  return {
    type: 'bar',
    data: {
      labels: names.map(shortLabel),
      datasets: [
        { label: words.p50, data: rows.map((r) => r.p50Secs), backgroundColor: theme.series[0], borderColor: theme.series[0], borderWidth: 1 },
        { label: words.p90, data: rows.map((r) => r.p90Secs), backgroundColor: theme.series[1], borderColor: theme.series[1], borderWidth: 1 },
      ],
    },
    options: {
      indexAxis: 'y',
      responsive: true,
      maintainAspectRatio: false,
      animation: theme.animate ? undefined : false,
      scales: {
        x: {
          beginAtZero: true,
          grid: { color: theme.grid },
          ticks: { color: theme.text, font: font(theme), stepSize: durationStep(longest), maxRotation: 0, callback: (value) => words.duration(Number(value)) },
        },
        y: { grid: { display: false }, ticks: { color: theme.text, font: font(theme) } },
      },
      plugins: {
        legend: { labels: { color: theme.text, font: font(theme) } },
        tooltip: {
          callbacks: {
            title: (items: TooltipItem<'bar'>[]) => (items.length ? names[items[0].dataIndex] ?? '' : ''),
            label: (item: TooltipItem<'bar'>) => `${item.dataset.label ?? ''}: ${item.parsed.x == null ? '—' : words.duration(item.parsed.x)}`,
          },
        },
      },
    },
  };
}

/** Pending calls at the end of each hour, as a line, oldest first. */
export function pendingChart(points: readonly PendingPoint[], words: ChartWords, theme: ChartTheme): ChartConfiguration<'line', number[], string> {
  const hours = points.map((p) => words.hour(p.at));
  return {
    type: 'line',
    data: {
      labels: hours,
      datasets: [
        {
          label: words.pending,
          data: points.map((p) => count(p.pending)),
          borderColor: theme.series[0],
          backgroundColor: theme.series[0],
          borderWidth: 2,
          pointRadius: points.length > 48 ? 0 : 2,
          pointHoverRadius: 4,
          tension: 0,
        },
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: theme.animate ? undefined : false,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { grid: { display: false }, ticks: { color: theme.text, font: font(theme), autoSkip: true, maxTicksLimit: 8, maxRotation: 0 } },
        y: { beginAtZero: true, grid: { color: theme.grid }, ticks: { color: theme.text, font: font(theme), precision: 0 } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items: TooltipItem<'line'>[]) => (items.length ? hours[items[0].dataIndex] ?? '' : ''),
            label: (item: TooltipItem<'line'>) => words.pendingAt(item.parsed.y ?? 0),
          },
        },
      },
    },
  };
}
