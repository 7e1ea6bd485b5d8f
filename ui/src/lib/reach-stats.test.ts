import { describe, expect, it } from 'vitest';
import type { ChartTheme } from './team';
import { formatDay, hasReachFigures, reachDayChart, timingRows } from './reach-stats';

const theme: ChartTheme = { series: ['#111111', '#222222'], text: '#333333', grid: '#444444', font: 'sans-serif', animate: false };
const words = { p50: 'p50', p90: 'p90', duration: (s: number) => `${s}s`, day: (key: string) => `d:${key}` };

describe('reach stats', () => {
  it('keeps the figures as the server sent them, and what is not a count or a time as 0 or null', () => {
    expect(timingRows([{ key: 'alice-hook', calls: 3, p50Secs: 41.5, p90Secs: 300 }])).toEqual([{ key: 'alice-hook', calls: 3, p50Secs: 41.5, p90Secs: 300 }]);
    expect(timingRows([{ key: 'x', calls: -1, p50Secs: Number.NaN, p90Secs: -5 }])).toEqual([{ key: 'x', calls: 0, p50Secs: null, p90Secs: null }]);
    expect(timingRows(undefined)).toEqual([]);
  });

  it('says whether there is anything to show', () => {
    const none = { days: 7, byChannel: [], byPerson: [], byRule: [], byDay: [] };
    expect(hasReachFigures(none)).toBe(false);
    expect(hasReachFigures({ ...none, byRule: [{ key: 'default', calls: 1, p50Secs: 1, p90Secs: 1 }] })).toBe(true);
  });

  it('names a day in the language, in UTC, and leaves a key that is not a date as it is', () => {
    expect(formatDay('2026-12-07', 'en')).toBe('Dec 7');
    expect(formatDay('2026-12-07', 'ja')).toBe('12月7日');
    expect(formatDay('not a day', 'en')).toBe('not a day');
  });

  it('draws p50 and p90 of each day as two lines, the value axis in durations', () => {
    const rows = timingRows([
      { key: '2026-12-06', calls: 2, p50Secs: 60, p90Secs: 600 },
      { key: '2026-12-07', calls: 5, p50Secs: 90, p90Secs: 1800 },
    ]);
    const chart = reachDayChart(rows, words, theme);
    expect(chart.type).toBe('line');
    expect(chart.data.labels).toEqual(['d:2026-12-06', 'd:2026-12-07']);
    expect(chart.data.datasets.map((d) => [d.label, d.data, d.borderColor])).toEqual([
      ['p50', [60, 90], '#111111'],
      ['p90', [600, 1800], '#222222'],
    ]);
    const y = chart.options!.scales!.y as { ticks: { stepSize: number; callback: (v: number) => string } };
    expect(y.ticks.stepSize).toBe(600);
    expect(y.ticks.callback(600)).toBe('600s');
    expect(chart.options!.animation).toBe(false);
  });
});
