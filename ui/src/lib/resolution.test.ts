import { describe, expect, it } from 'vitest';
import { resolutionsOffered, rowResolution, typedResult } from './resolution';
import { makeInterrupted, makeItem } from './testing/fixtures';

const resolved = (kind: 'ran' | 'did_not_run' | 'run_again') =>
  makeInterrupted({ allowed: [], resolution: { kind, result: null, fingerprint: 'sha256:aa', operator: 'web', resolvedAt: '2025-01-01T10:05:00Z', retryItem: null } });

describe('resolutions', () => {
  it('offers what an unresolved interrupted call allows, in order, and nothing for other calls', () => {
    expect(resolutionsOffered(makeInterrupted())).toEqual(['ran', 'did_not_run']);
    expect(resolutionsOffered(makeInterrupted({ allowed: ['run_again', 'did_not_run', 'ran'] }))).toEqual(['ran', 'did_not_run', 'run_again']);
    expect(resolutionsOffered(makeInterrupted({ allowed: [] }))).toEqual([]);
    // A pending call's allowed decisions are not resolutions, and a resolved call offers none.
    expect(resolutionsOffered(makeItem({ allowed: ['approve', 'decline', 'ran'] }))).toEqual([]);
    expect(resolutionsOffered({ ...resolved('ran'), allowed: ['ran', 'did_not_run'] })).toEqual([]);
  });

  it("tells a row whether the call needs the operator's word, or how it was resolved", () => {
    expect(rowResolution(makeInterrupted())).toBe('needed');
    expect(rowResolution(makeInterrupted({ allowed: [] }))).toBe('needed');
    expect(['ran', 'did_not_run', 'run_again'].map((k) => rowResolution(resolved(k as 'ran')))).toEqual(['ran', 'did_not_run', 'run_again']);
    expect(rowResolution(makeItem())).toBeNull();
    expect(rowResolution(makeItem({ state: 'delivered', allowed: [] }))).toBeNull();
  });

  it('reads the typed result: blanks send none, JSON its value, other text as typed', () => {
    expect(typedResult('')).toEqual({ kind: 'none' });
    expect(typedResult('  \n ')).toEqual({ kind: 'none' });
    expect(typedResult(' {"rows": 3, "ids": ["a"]} ')).toEqual({ kind: 'json', value: { rows: 3, ids: ['a'] } });
    expect(typedResult('42')).toEqual({ kind: 'json', value: 42 });
    expect(typedResult('"quoted"')).toEqual({ kind: 'json', value: 'quoted' });
    expect(typedResult('null')).toEqual({ kind: 'json', value: null });
    expect(typedResult('deleted 3 rows')).toEqual({ kind: 'text', value: 'deleted 3 rows' });
    expect(typedResult('{"rows": 3')).toEqual({ kind: 'text', value: '{"rows": 3' });
  });
});
