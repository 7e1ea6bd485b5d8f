import { describe, expect, it } from 'vitest';
import { filterBySearch, matchesSearch, searchText } from './search';
import { makeItem } from './testing/fake-backend';

describe('searchText', () => {
  it('holds keys and values in document order', () => {
    expect(searchText({ path: '/etc/passwd', opts: { force: true, n: 3, list: ['x', null, 'y'] } })).toBe('path /etc/passwd opts force true n 3 list x y');
    expect(searchText('plain')).toBe('plain');
  });

  it('walks arguments nested 100,000 levels deep without overflowing the stack', () => {
    let deep: unknown = 'needle';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    expect(searchText(deep, 1_000_000)).toMatch(/ needle$/);
  });

  it('stops at the limit', () => {
    const text = searchText({ a: 'x'.repeat(100), b: 'never seen' }, 50);
    expect(text.length).toBeLessThanOrEqual(50);
    expect(text).not.toContain('never');
  });
});

describe('matchesSearch', () => {
  const item = makeItem({ toolName: 'delete_record', agentId: 'ops', agentName: 'Operations Bot', args: { id: 'REC-42', reason: 'cleanup' } });

  it('finds tool, agent id and name, and argument text, case-insensitively, every word', () => {
    for (const q of ['delete', 'OPS', 'operations bot', 'rec-42', 'reason', 'cleanup delete', '  ']) expect(matchesSearch(item, q), q).toBe(true);
    for (const q of ['rec-43', 'delete nope', 'local']) expect(matchesSearch(item, q), q).toBe(false);
  });

  it('filters a list, keeping its order; an empty query keeps all', () => {
    const list = [makeItem({ id: '1', toolName: 'send_email' }), item, makeItem({ id: '3', toolName: 'send_sms' })];
    expect(filterBySearch(list, 'send').map((i) => i.id)).toEqual(['1', '3']);
    expect(filterBySearch(list, '')).toEqual(list);
  });
});
