import { describe, expect, it } from 'vitest';
import { makeAwaitingDecision, makeItem } from './testing/fake-backend';
import { moveSelection, nextAfterDecision } from './triage';

const list = ['a', 'b', 'c'].map((id) => makeItem({ id }));

describe('moveSelection', () => {
  it('steps through the list without wrapping', () => {
    expect(moveSelection(list, 'a', 'next')).toBe('b');
    expect(moveSelection(list, 'c', 'next')).toBe('c');
    expect(moveSelection(list, 'b', 'prev')).toBe('a');
    expect(moveSelection(list, 'a', 'prev')).toBe('a');
    expect(moveSelection(list, 'b', 'first')).toBe('a');
    expect(moveSelection(list, 'a', 'last')).toBe('c');
  });

  it('starts at the top going down and at the bottom going up when nothing listed is selected', () => {
    for (const current of [null, 'not-listed']) {
      expect(moveSelection(list, current, 'next')).toBe('a');
      expect(moveSelection(list, current, 'prev')).toBe('c');
    }
    expect(moveSelection([], null, 'next')).toBeNull();
  });
});

describe('nextAfterDecision', () => {
  it('takes the next call below that still waits, else the nearest above', () => {
    const decided = { state: 'decided' as const, allowed: [], decision: makeAwaitingDecision() };
    const calls = [makeItem({ id: 'a' }), makeItem({ id: 'b' }), makeItem({ id: 'c', ...decided }), makeItem({ id: 'd' })];
    expect(nextAfterDecision(calls, 'b')).toBe('d');
    expect(nextAfterDecision(calls, 'd')).toBe('b');
    expect(nextAfterDecision(calls, 'a')).toBe('b');
    expect(nextAfterDecision([makeItem({ id: 'a' }), makeItem({ id: 'x', ...decided })], 'a')).toBeNull();
    expect(nextAfterDecision([makeItem({ id: 'a' })], 'a')).toBeNull();
  });

  it('starts from the top when the decided call is not listed', () => {
    expect(nextAfterDecision(list, 'gone')).toBe('a');
  });

  it('goes below the decided call as it was shown, though the call already left the list', () => {
    const shown = ['a', 'b', 'c', 'd'].map((id) => makeItem({ id }));
    // The decision's event came first: c is out of the list when its answer arrives.
    const now = shown.filter((x) => x.id !== 'c');
    expect(nextAfterDecision(shown, 'c', now)).toBe('d');
    expect(nextAfterDecision(now, 'c')).toBe('a');
    // Whether a call still waits is as it is now: d was decided elsewhere meanwhile, b left the list.
    const later = [makeItem({ id: 'a' }), makeItem({ id: 'd', state: 'decided', allowed: [], decision: makeAwaitingDecision() })];
    expect(nextAfterDecision(shown, 'c', later)).toBe('a');
    // None of those left: a call that arrived meanwhile.
    expect(nextAfterDecision(shown, 'c', [makeItem({ id: 'new' })])).toBe('new');
    expect(nextAfterDecision(shown, 'c', [])).toBeNull();
  });
});
