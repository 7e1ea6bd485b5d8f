// The Team view's figures without a canvas: totals and shares, and the Chart.js configurations built
// from an answer of GET /api/stats (labels, datasets, axis and tooltip texts).
import { describe, expect, it } from 'vitest';
import type { Scale, TooltipItem } from 'chart.js';
import { emptyTeamStats, makeTeamStats } from './testing/fixtures';
import {
  DEFAULT_STATS_DAYS,
  LABEL_MAX,
  STATS_PERIODS,
  barChartHeight,
  chartName,
  durationStep,
  formatShare,
  hasDecisions,
  hasPending,
  operatorRows,
  pendingChart,
  shortLabel,
  teamTotals,
  timeToDecisionChart,
  toolRows,
  type ChartTheme,
  type ChartWords,
} from './team';

const THEME: ChartTheme = { series: ['#1f5fbf', '#8a5300'], text: '#5f6368', grid: '#d5d7da', font: 'system-ui', animate: true };
const WORDS: ChartWords = {
  p50: 'p50 (median)',
  p90: 'p90',
  pending: 'Pending',
  duration: (s) => `${s} s`,
  pendingAt: (n) => `${n} pending`,
  hour: (iso) => `hour ${iso.slice(11, 16)}`,
};

/** A tick callback as Chart.js calls it (its `this` is the scale; ours do not read it). */
function tick(cb: unknown, value: number): unknown {
  return (cb as (this: Scale, v: number, i: number, t: unknown[]) => unknown).call({} as Scale, value, 0, []);
}

describe('team figures', () => {
  it('offers 1, 7 and 30 days, 7 first', () => {
    expect(STATS_PERIODS).toEqual([1, 7, 30]);
    expect(DEFAULT_STATS_DAYS).toBe(7);
  });

  it('counts the decided calls and the shares declined and expired of all of them', () => {
    const t = teamTotals(makeTeamStats());
    expect(t).toEqual({ decided: 18, declined: 3, expired: 1, declinedShare: 3 / 18, expiredShare: 1 / 18 });
    expect(formatShare(t.declinedShare, 'en')).toBe('16.7%');
    expect(formatShare(t.expiredShare, 'en')).toBe('5.6%');
    expect(formatShare(1, 'ja')).toBe('100%');
    expect(formatShare(0, 'en')).toBe('0%');
  });

  it('gives no share of nothing, and reads a period without decisions or pending calls as empty', () => {
    const empty = emptyTeamStats();
    expect(teamTotals(empty)).toEqual({ decided: 0, declined: 0, expired: 0, declinedShare: null, expiredShare: null });
    expect(formatShare(null, 'en')).toBe('—');
    expect(hasDecisions(empty)).toBe(false);
    expect(hasPending(empty)).toBe(false);
    expect(hasPending({ ...empty, pendingOverTime: [{ at: '2026-11-30T18:00:00Z', pending: 0 }] })).toBe(false);
    expect(hasPending({ ...empty, pendingOverTime: [{ at: '2026-11-30T18:00:00Z', pending: 2 }] })).toBe(true);
    expect(hasDecisions(makeTeamStats())).toBe(true);
    // Arrays left out, counts that are not counts: nothing to show rather than NaN.
    const odd = { since: '', until: '', decisions: { total: Number.NaN } } as unknown as Parameters<typeof teamTotals>[0];
    expect(teamTotals(odd).decided).toBe(0);
    expect(hasDecisions(odd)).toBe(false);
    expect(hasPending(odd)).toBe(false);
    expect(toolRows(odd)).toEqual([]);
  });

  it('builds the per-tool chart: one label per tool, p50 and p90 datasets in order, durations on the value axis and in tooltips', () => {
    const stats = makeTeamStats({
      byTool: [
        { tool: 'delete_record', decided: 9, p50Secs: 41.5, p90Secs: 300, declined: 2, expired: 1 },
        { tool: 'send_email', decided: 4, p50Secs: 12, p90Secs: 60, declined: 0, expired: 0 },
      ],
    });
    const config = timeToDecisionChart(toolRows(stats), WORDS, THEME);
    expect(config.type).toBe('bar');
    expect(config.data.labels).toEqual(['delete_record', 'send_email']);
    expect(config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['p50 (median)', [41.5, 12]],
      ['p90', [300, 60]],
    ]);
    expect(config.data.datasets.map((d) => d.backgroundColor)).toEqual(THEME.series);
    expect(config.options?.indexAxis).toBe('y');
    expect(config.options?.animation).toBeUndefined();
    const x = config.options!.scales!.x!;
    expect(tick(x.ticks!.callback, 300)).toBe('300 s');
    const callbacks = config.options!.plugins!.tooltip!.callbacks!;
    const item = { dataIndex: 1, dataset: { label: 'p90' }, parsed: { x: 60, y: 1 } } as unknown as TooltipItem<'bar'>;
    expect((callbacks.title as (i: TooltipItem<'bar'>[]) => string)([item])).toBe('send_email');
    expect((callbacks.label as (i: TooltipItem<'bar'>) => string)(item)).toBe('p90: 60 s');
  });

  it('builds the per-operator chart the same way, and leaves a gap for a time that is not one', () => {
    const stats = makeTeamStats({
      byOperator: [
        { operator: 'alice (web)', decided: 7, p50Secs: 20, p90Secs: 95 },
        { operator: 'bob', decided: 1, p50Secs: null as unknown as number, p90Secs: 5 },
      ],
    });
    const config = timeToDecisionChart(operatorRows(stats), WORDS, { ...THEME, animate: false });
    expect(config.data.labels).toEqual(['alice (web)', 'bob']);
    expect(config.data.datasets[0].data).toEqual([20, null]);
    expect(config.data.datasets[1].data).toEqual([95, 5]);
    expect(config.options?.animation).toBe(false);
  });

  it('draws untrusted names as text with hidden characters escaped, and cuts long ones on the axis only', () => {
    const long = 'a'.repeat(40);
    const rows = [
      { name: '<img src=x onerror=alert(1)>', p50Secs: 1, p90Secs: 2 },
      { name: 'rm\u202Efdp.exe', p50Secs: 1, p90Secs: 2 },
      { name: long, p50Secs: 1, p90Secs: 2 },
    ];
    const config = timeToDecisionChart(rows, WORDS, THEME);
    expect(config.data.labels![0]).toBe('<img src=x onerror=alert(1)>');
    expect(config.data.labels![1]).toBe('rm\\u{202E}fdp.exe');
    expect(chartName('rm\u202Efdp.exe')).toBe('rm\\u{202E}fdp.exe');
    expect([...config.data.labels![2]].length).toBe(LABEL_MAX);
    expect(config.data.labels![2].endsWith('…')).toBe(true);
    expect(shortLabel('short')).toBe('short');
    const title = config.options!.plugins!.tooltip!.callbacks!.title as (i: TooltipItem<'bar'>[]) => string;
    expect(title([{ dataIndex: 2 } as TooltipItem<'bar'>])).toBe(long);
  });

  it('steps a duration axis by round durations, five steps at most', () => {
    expect(durationStep(300)).toBe(60);
    expect(durationStep(1800)).toBe(600);
    expect(durationStep(41.5)).toBe(10);
    expect(durationStep(7200)).toBe(1800);
    expect(durationStep(0)).toBe(1);
    expect(durationStep(Number.NaN)).toBe(1);
    expect(durationStep(90 * 86_400)).toBe(18 * 86_400);
    const config = timeToDecisionChart([{ name: 'a', p50Secs: 41.5, p90Secs: 1800 }], WORDS, THEME);
    expect(config.options!.scales!.x!.ticks).toMatchObject({ stepSize: 600 });
  });

  it('builds the pending line: one label per hour, oldest first, the counts as its one dataset', () => {
    const config = pendingChart(makeTeamStats().pendingOverTime, WORDS, THEME);
    expect(config.type).toBe('line');
    expect(config.data.labels).toEqual(['hour 17:00', 'hour 18:00']);
    expect(config.data.datasets).toHaveLength(1);
    expect(config.data.datasets[0].label).toBe('Pending');
    expect(config.data.datasets[0].data).toEqual([1, 4]);
    expect(config.options!.scales!.y).toMatchObject({ beginAtZero: true, ticks: { precision: 0 } });
    const callbacks = config.options!.plugins!.tooltip!.callbacks!;
    const item = { dataIndex: 1, parsed: { x: 1, y: 4 } } as unknown as TooltipItem<'line'>;
    expect((callbacks.title as (i: TooltipItem<'line'>[]) => string)([item])).toBe('hour 18:00');
    expect((callbacks.label as (i: TooltipItem<'line'>) => string)(item)).toBe('4 pending');
  });

  it('builds charts of nothing without failing, and sizes bar charts by their rows', () => {
    const empty = emptyTeamStats();
    expect(timeToDecisionChart(toolRows(empty), WORDS, THEME).data.labels).toEqual([]);
    expect(pendingChart(empty.pendingOverTime, WORDS, THEME).data.datasets[0].data).toEqual([]);
    expect(barChartHeight(1)).toBe(9);
    expect(barChartHeight(20)).toBeGreaterThan(barChartHeight(10));
  });
});
