import { describe, expect, it } from 'vitest';
import { groupByRun, layoutRows, visibleRange } from './run-groups';
import { makeItem } from './testing/fake-backend';

const item = (id: string, runId: string, engine = 'local') => makeItem({ id, runId, engine, fingerprint: 'sha256:' + '00'.repeat(32) });

describe('groupByRun', () => {
  it('puts the calls of a run together where its first call is; a run id on two engines is two runs', () => {
    const g = groupByRun([item('a1', 'a'), item('b1', 'b'), item('a2', 'a'), item('x', 'a', 'remote'), item('a3', 'a')]);
    expect(g.order.map((i) => i.id)).toEqual(['a1', 'a2', 'a3', 'b1', 'x']);
    expect([...g.runs.values()].map((r) => [r.engine, r.runId, r.items.map((i) => i.id)])).toEqual([['local', 'a', ['a1', 'a2', 'a3']]]);
  });

  it('leaves a list of single calls as it is', () => {
    const list = [item('1', 'r1'), item('2', 'r2')];
    expect(groupByRun(list)).toEqual({ order: list, runs: new Map() });
  });
});

describe('layoutRows and visibleRange', () => {
  it('places a header before each run and finds the rows in view by binary search', () => {
    const g = groupByRun([item('s', 's'), item('a1', 'a'), item('a2', 'a'), ...Array.from({ length: 1000 }, (_, i) => item(`c${i}`, `c${i}`))]);
    const layout = layoutRows(g, 20, (i) => (i.id === 's' ? 60 : 50));
    expect(layout.rows.slice(0, 4).map((r) => [r.kind, r.kind === 'item' ? r.item.id : r.run.runId, r.top])).toEqual([
      ['item', 's', 0],
      ['run', 'a', 60],
      ['item', 'a1', 80],
      ['item', 'a2', 130],
    ]);
    expect(layout.height).toBe(60 + 20 + 50 * 1002);
    expect(layout.indexOf.get('a2')).toBe(3);
    const { start, end } = visibleRange(layout.rows, 180 + 50 * 500, 500, 2);
    const ids = layout.rows.slice(start, end).map((r) => (r.kind === 'item' ? r.item.id : ''));
    expect(ids[0]).toBe('c498');
    expect(ids).toContain('c500');
    expect(ids).toContain('c509');
    expect(ids.length).toBeLessThanOrEqual(10 + 1 + 4);
    expect(visibleRange([], 0, 500)).toEqual({ start: 0, end: 0 });
  });
});
