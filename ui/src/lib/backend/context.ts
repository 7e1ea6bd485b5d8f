import { getContext, setContext } from 'svelte';
import type { Backend } from './backend';

const KEY = Symbol('backend');

/** Called once by the root component with the implementation `main.ts` chose. */
export function setBackend(backend: Backend): void {
  setContext(KEY, backend);
}

/** The `Backend` of the nearest root; throws if a component is mounted without one. */
export function getBackend(): Backend {
  const b = getContext<Backend | undefined>(KEY);
  if (!b) throw new Error('No Backend in context: mount components under <App backend={...}>.');
  return b;
}

/** A context map holding `backend`, for `mount(Component, { context })` in tests and embeddings. */
export function backendContext(backend: Backend): Map<unknown, unknown> {
  return new Map([[KEY, backend]]);
}
