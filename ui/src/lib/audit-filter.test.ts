import { describe, expect, it } from 'vitest';
import { emptyAuditFilter, filtering, fromParams, toParams, toQuery } from './audit-filter';

describe('audit filters', () => {
  it('send local days as the instants they start and end at, and leave empty fields out', () => {
    const f = { ...emptyAuditFilter(), action: 'decision.approve', agent: ' billing ', source: 'http' as const, from: '2026-03-01', until: '2026-03-02' };
    expect(toQuery(f)).toEqual({
      action: 'decision.approve',
      agent: 'billing',
      source: 'http',
      from: new Date(2026, 2, 1).toISOString(),
      // The last day kept is whole: the query ends where the next day starts.
      until: new Date(2026, 2, 3).toISOString(),
    });
    expect(toQuery(emptyAuditFilter())).toEqual({});
    expect(filtering(emptyAuditFilter())).toBe(false);
    expect(filtering({ ...emptyAuditFilter(), source: 'mcp' })).toBe(true);
  });

  it('go into a link and come back the same; what is not a filter is dropped', () => {
    const f = { action: 'grant', agent: 'demo', source: 'claude-code' as const, from: '2026-01-05', until: '' };
    expect(fromParams(new URLSearchParams(toParams(f).toString()))).toEqual(f);
    const hostile = new URLSearchParams({ action: 'decision.approve" onclick="x', source: 'ftp', from: 'yesterday', until: '2026-13-99x' });
    expect(fromParams(hostile)).toEqual(emptyAuditFilter());
  });
});
