/**
 * Statistics → Time to decision of calls that went to channels (`GET /api/stats/reach?days=N`),
 * apart from its markup (`ReachStatsView.svelte`): the rows of its tables and the Chart.js
 * configuration of its line over days (p50 and p90). Pure: words, formats and colours are passed
 * in, so each is tested without a canvas (`reach-stats.test.ts`). The chart draws only days; the
 * tables show channel, person and rule names (untrusted) with `MarkedText`.
 */
import type { ChartConfiguration, TooltipItem } from 'chart.js';
import type { ReachStats, ReachTiming } from './backend/backend';
import { durationStep, secs, type ChartTheme, type ChartWords } from './team';

/** One row of a table: a channel, person, rule or day, its calls, p50 and p90 (`null`: not a time). */
export type TimingRow = { key: string; calls: number; p50Secs: number | null; p90Secs: number | null };

export function timingRows(list: readonly ReachTiming[] | null | undefined): TimingRow[] {
  return (list ?? []).map((t) => ({
    key: String(t.key ?? ''),
    calls: typeof t.calls === 'number' && Number.isFinite(t.calls) && t.calls > 0 ? t.calls : 0,
    p50Secs: secs(t.p50Secs),
    p90Secs: secs(t.p90Secs),
  }));
}

/** Whether the period has any figure to show. */
export function hasReachFigures(s: ReachStats): boolean {
  return [s.byChannel, s.byPerson, s.byRule, s.byDay].some((list) => (list ?? []).length > 0);
}

/** A day as the server names it (`2026-12-07`, UTC) in `language` (`Dec 7`); the key unchanged when it is not a date. */
export function formatDay(key: string, language: string): string {
  const d = new Date(`${key}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(key) || Number.isNaN(d.getTime())) return key;
  return d.toLocaleDateString(language, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

const font = (theme: ChartTheme) => ({ family: theme.font, size: 12 });

/** p50 and p90 of each day as two lines, oldest first; the value axis and tooltips read as durations. */
export function reachDayChart(
  days: readonly TimingRow[],
  words: Pick<ChartWords, 'p50' | 'p90' | 'duration'> & { day: (key: string) => string },
  theme: ChartTheme,
): ChartConfiguration<'line', number[], string> {
  const labels = days.map((d) => words.day(d.key));
  const longest = Math.max(0, ...days.flatMap((d) => [d.p50Secs ?? 0, d.p90Secs ?? 0]));
  const line = (label: string, data: number[], colour: string) => ({
    label,
    data,
    borderColor: colour,
    backgroundColor: colour,
    borderWidth: 2,
    pointRadius: days.length > 45 ? 0 : 2,
    pointHoverRadius: 4,
    tension: 0,
  });
  return {
    type: 'line',
    data: {
      labels,
      datasets: [
        line(words.p50, days.map((d) => d.p50Secs ?? 0), theme.series[0]),
        line(words.p90, days.map((d) => d.p90Secs ?? 0), theme.series[1]),
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: theme.animate ? undefined : false,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { grid: { display: false }, ticks: { color: theme.text, font: font(theme), autoSkip: true, maxTicksLimit: 10, maxRotation: 0 } },
        y: {
          beginAtZero: true,
          grid: { color: theme.grid },
          ticks: { color: theme.text, font: font(theme), stepSize: durationStep(longest), callback: (value) => words.duration(Number(value)) },
        },
      },
      plugins: {
        legend: { labels: { color: theme.text, font: font(theme) } },
        tooltip: {
          callbacks: {
            title: (items: TooltipItem<'line'>[]) => (items.length ? (labels[items[0].dataIndex] ?? '') : ''),
            label: (item: TooltipItem<'line'>) => `${item.dataset.label ?? ''}: ${words.duration(item.parsed.y ?? 0)}`,
          },
        },
      },
    },
  };
}
