import { afterEach, describe, expect, it } from 'vitest';
import { HOLD_MS, SETTLE_MS, keyAction, settling, type KeyPress } from './keys';

afterEach(() => {
  document.body.replaceChildren();
});

/** A key press as the console receives it, from `target` (the page when none). */
function press(key: string, target: Element | null = document.body, over: Partial<KeyPress> = {}): KeyPress {
  return { key, target, ctrlKey: false, altKey: false, metaKey: false, defaultPrevented: false, repeat: false, isComposing: false, ...over };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, parent: Element = document.body) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

describe('keyAction', () => {
  it('maps the letters to their actions from the page', () => {
    expect(['j', 'k', 'a', 'e', 'd', 'r', '/', '?'].map((k) => keyAction(press(k)))).toEqual([
      'next',
      'prev',
      'approve',
      'edit',
      'decline',
      'resume',
      'search',
      'help',
    ]);
    expect(keyAction(press('Escape'))).toBe('escape');
    expect(keyAction(press('x'))).toBeNull();
    // Capitals are other keys: Shift+A does not approve.
    expect(keyAction(press('A'))).toBeNull();
  });

  it('does not act while the operator types in a field, except Esc', () => {
    const fields = [el('input', { type: 'text' }), el('textarea'), el('select'), el('input', { type: 'search' })];
    const editable = el('div', { contenteditable: 'true' });
    const inside = el('span', {}, editable);
    for (const target of [...fields, editable, inside]) {
      for (const key of ['a', 'e', 'd', 'r', 'j', 'k', '/', '?', 'Enter', 'ArrowDown']) {
        expect(keyAction(press(key, target)), `${key} in ${target.outerHTML}`).toBeNull();
      }
      expect(keyAction(press('Escape', target))).toBe('escape');
    }
    expect(keyAction(press('a', el('div', { contenteditable: 'false' })))).toBe('approve');
  });

  it('leaves keys with Ctrl, Alt or Meta to the browser and the desktop, and ignores handled or composing keys', () => {
    for (const mod of ['ctrlKey', 'altKey', 'metaKey'] as const) {
      expect(keyAction(press('a', document.body, { [mod]: true }))).toBeNull();
      expect(keyAction(press('Escape', document.body, { [mod]: true }))).toBeNull();
    }
    expect(keyAction(press('a', document.body, { defaultPrevented: true }))).toBeNull();
    expect(keyAction(press('a', document.body, { isComposing: true }))).toBeNull();
  });

  it('acts once for a held-down letter that decides, but moves for a held-down j', () => {
    for (const k of ['a', 'e', 'd', 'r', '/', '?', 'Enter', 'Escape']) expect(keyAction(press(k, document.body, { repeat: true })), k).toBeNull();
    expect(keyAction(press('j', document.body, { repeat: true }))).toBe('next');
  });

  it('moves with the arrows, Home and End only in the list (elsewhere they scroll)', () => {
    const list = el('ul', { role: 'listbox' });
    const option = el('li', { role: 'option', tabindex: '0' }, list);
    expect(['ArrowDown', 'ArrowUp', 'Home', 'End'].map((k) => keyAction(press(k, option)))).toEqual(['next', 'prev', 'first', 'last']);
    for (const k of ['ArrowDown', 'ArrowUp', 'Home', 'End']) expect(keyAction(press(k)), k).toBeNull();
  });

  it('opens with Enter from the list or the page, never from a control that Enter activates', () => {
    const list = el('ul', { role: 'listbox' });
    const option = el('li', { role: 'option', tabindex: '-1' }, list);
    const heading = el('h2', { tabindex: '-1' });
    expect(keyAction(press('Enter', option))).toBe('open');
    expect(keyAction(press('Enter'))).toBe('open');
    expect(keyAction(press('Enter', heading))).toBe('open');
    for (const control of [el('button'), el('a', { href: '#x' }), el('summary'), el('button', { tabindex: '-1' }), el('div', { role: 'tab', tabindex: '-1' })]) {
      expect(keyAction(press('Enter', control)), control.outerHTML).toBeNull();
    }
    // The other shortcuts do work from a focused button.
    expect(keyAction(press('a', el('button')))).toBe('approve');
  });
});

describe('settling', () => {
  it('ignores decision keys for 400 ms after a call appeared, and not after', () => {
    expect(settling(1000, 1000)).toBe(true);
    expect(settling(1000, 1399)).toBe(true);
    expect(settling(1000, 1400)).toBe(false);
    expect(settling(1000, 5000)).toBe(false);
    expect(SETTLE_MS).toBeGreaterThanOrEqual(300);
    expect(HOLD_MS).toBeGreaterThanOrEqual(800);
  });
});
