import { describe, expect, it } from 'vitest';
import { filterBySearch, jsonText, matchesSearch, searchWords } from './search';
import { makeItem } from './testing/fake-backend';

describe('jsonText', () => {
  it('is the compact JSON of the arguments, as the server indexes them', () => {
    expect(jsonText({ path: '/etc/passwd', opts: { force: true, list: ['x', null] } })).toBe('{"path":"/etc/passwd","opts":{"force":true,"list":["x",null]}}');
  });

  it('stops at the limit, and gives nothing for what JSON cannot hold', () => {
    expect(jsonText({ a: 'x'.repeat(100) }, 20)).toHaveLength(20);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonText(cyclic)).toBe('');
  });
});

describe('matchesSearch', () => {
  const item = makeItem({ toolName: 'delete_record', agentId: 'ops', agentName: 'Operations Bot', args: { id: 'REC-42', reason: 'cleanup' } });

  it('finds tool, agent id and name, and argument text, case-insensitively, every word', () => {
    for (const q of ['delete', 'OPS', 'operations bot', 'rec-42', '"id":"rec-42"', 'reason', 'cleanup delete', '42', '  ']) expect(matchesSearch(item, q), q).toBe(true);
    for (const q of ['rec-43', 'delete nope', 'local', 'record_ops']) expect(matchesSearch(item, q), q).toBe(false);
  });

  it('splits words on whitespace as the server does', () => {
    expect(searchWords('  a\tb  c ')).toEqual(['a', 'b', 'c']);
  });

  it('filters a list, keeping its order; an empty query keeps all', () => {
    const list = [makeItem({ id: '1', toolName: 'send_email' }), item, makeItem({ id: '3', toolName: 'send_sms' })];
    expect(filterBySearch(list, 'send').map((i) => i.id)).toEqual(['1', '3']);
    expect(filterBySearch(list, '')).toEqual(list);
  });
});
