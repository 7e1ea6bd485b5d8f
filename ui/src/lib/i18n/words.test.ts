import { describe, expect, it } from 'vitest';
import { slots, wordFor } from './words';

describe('slots', () => {
  it('splits a message into words and named places, in the order of the language', () => {
    expect(slots('Start with {cmd} and open {url}.')).toEqual([{ text: 'Start with ' }, { slot: 'cmd' }, { text: ' and open ' }, { slot: 'url' }, { text: '.' }]);
    expect(slots('{cmd} で起動し、{url} を開きます')).toEqual([{ slot: 'cmd' }, { text: ' で起動し、' }, { slot: 'url' }, { text: ' を開きます' }]);
    expect(slots('no places')).toEqual([{ text: 'no places' }]);
    expect(slots('{a}{b}')).toEqual([{ slot: 'a' }, { slot: 'b' }]);
  });

  it('names a value from the wire by its word, or shows it as it came', () => {
    const words = { auth_failed: 'auth failed' };
    expect(wordFor(words, 'auth_failed')).toBe('auth failed');
    expect(wordFor(words, 'brand_new')).toBe('brand_new');
    expect(wordFor(words, 'toString')).toBe('toString');
  });
});
