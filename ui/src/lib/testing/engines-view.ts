import { vi } from 'vitest';
import { backendContext } from '../backend/context';
import EnginesView from '../components/EnginesView.svelte';
import type { FakeBackend } from './fake-backend';
import { mountInBody, settle } from './mount';

/** EnginesView mounted over a fake backend, with finders for its parts. */
export async function renderEngines(backend: FakeBackend, refreshMs = 60_000) {
  const onerror = vi.fn();
  const { target, unmount } = mountInBody(EnginesView, { props: { onerror, refreshMs }, context: backendContext(backend) });
  await settle();
  const q = (sel: string, root: ParentNode = target) => root.querySelector(sel) as HTMLElement | null;
  const tid = (id: string, root: ParentNode = target) => q(`[data-testid="${id}"]`, root);
  const card = (name: string) => q(`[data-testid="engine"][data-name="${name}"]`);
  return { target, unmount, q, tid, card, onerror };
}

/** Every place a value could be rendered: the markup, all text, and the live value of every field. */
export function everythingShown(root: HTMLElement): string {
  const values = [...root.querySelectorAll('input, textarea, select')].map((el) => (el as HTMLInputElement).value);
  return [root.innerHTML, root.textContent ?? '', ...values].join('\n');
}

/** A token value the tests look for everywhere it must never appear. */
export const SECRET = 'tok-7f3a9c-very-secret';
