// What a queue row says besides the call (issue 45): how long it waited, the two-person rule's
// progress, whether a call was submitted (a run of its own), whether its deadline is near.
import { describe, expect, it } from 'vitest';
import { makeItem } from './testing/fake-backend';
import { ago, nearExpiry, personOf, quorumProgress, submitted } from './row-meta';

const T = Date.parse('2025-01-01T10:00:00Z');
const before = (secs: number) => new Date(T - secs * 1000).toISOString();

describe('row meta', () => {
  it('says how long ago in the shortest words of the language, a clock ahead reading as now', () => {
    expect(ago(before(10), T, 'en')).toBe('now');
    expect(ago(before(4 * 60), T, 'en')).toBe('4m ago');
    expect(ago(before(2 * 3600), T, 'en')).toBe('2h ago');
    expect(ago(before(3 * 86_400), T, 'en')).toBe('3d ago');
    expect(ago(before(-120), T, 'en')).toBe('now');
    expect(ago(before(4 * 60), T, 'ja')).toBe('4分前');
    expect(ago('not a time', T, 'en')).toBe('not a time');
  });

  it("names the first approver of a quorum without how they came in, and nothing for a call without one or decided", () => {
    const alice = { operator: 'alice (web)', operatorKey: 'token:alice', at: '2025-01-01T10:00:10Z' };
    const bob = { operator: 'bob', operatorKey: 'token:bob', at: '2025-01-01T10:00:20Z' };
    expect(quorumProgress(makeItem({ quorum: 2, approvals: [alice] }))).toEqual({ have: 1, need: 2, first: 'alice', all: ['alice (web)'] });
    expect(quorumProgress(makeItem({ quorum: 3, approvals: [] }))).toEqual({ have: 0, need: 3, first: null, all: [] });
    expect(quorumProgress(makeItem({ quorum: 3, approvals: [bob, alice] }))?.first).toBe('bob');
    expect(quorumProgress(makeItem({ quorum: 1 }))).toBeNull();
    expect(quorumProgress(makeItem({ quorum: 2, approvals: [alice], state: 'delivered', allowed: [] }))).toBeNull();
    expect(personOf('alice (web)')).toBe('alice');
    expect(personOf('(web)')).toBe('(web)');
    expect(personOf('a (b) (c)')).toBe('a (b)');
  });

  it('tells submitted calls (a run of their own) from an engine’s', () => {
    expect(['http', 'claude-code', 'codex', 'gemini', 'mcp', 'acp', 'openai-agents', 'ai-sdk', 'adk', 'langchain'].map((source) => submitted({ source: source as 'http' }))).toEqual(Array(10).fill(true));
    expect(['local', 'mastra', 'langgraph'].map((source) => submitted({ source: source as 'local' }))).toEqual([false, false, false]);
  });

  it('finds a waiting call inside its warn window, not before it, and no deadline for a decided one', () => {
    const in_ = (secs: number) => new Date(T + secs * 1000).toISOString();
    expect(nearExpiry(makeItem({ expiresAt: in_(120) }), T, 300)).toBe(true);
    expect(nearExpiry(makeItem({ expiresAt: in_(900) }), T, 300)).toBe(false);
    expect(nearExpiry(makeItem({ expiresAt: null }), T, 300)).toBe(false);
    expect(nearExpiry(makeItem({ expiresAt: in_(120), state: 'delivered', allowed: [] }), T, 300)).toBe(false);
  });
});
