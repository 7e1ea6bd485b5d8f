import { describe, expect, it } from 'vitest';
import { Banners } from './banners.svelte';

describe('Banners', () => {
  it('drops what was said of another call when a call is opened, and keeps what was said of none', () => {
    const b = new Banners();
    b.push({ code: 'network', message: 'the console is unreachable', details: null });
    b.push({ code: 'own_run', message: 'you started this run', details: null }, 'q1');
    b.push({ code: 'already_decided', message: 'decided', details: null }, 'q2');
    b.opened('q2');
    expect(b.list.map((x) => x.code)).toEqual(['network', 'already_decided']);
    b.opened(null);
    expect(b.list.map((x) => x.code)).toEqual(['network']);
  });

  it('shows one failure once per call, but the same failure of two calls twice', () => {
    const b = new Banners();
    const err = { code: 'own_run', message: 'you started this run', details: null };
    b.push(err, 'q1');
    b.push(err, 'q1');
    b.push(err, 'q2');
    expect(b.list.map((x) => x.item)).toEqual(['q1', 'q2']);
  });
});
