import { getContext, setContext } from 'svelte';
import { Access, ACCESS_KEY } from '../access.svelte';
import type { Backend, Principal } from './backend';

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

/** The local admin: what `backendContext` signs in as unless told otherwise. */
export const LOCAL_ADMIN: Readonly<Principal> = { name: 'me', role: 'admin', kind: 'local' };

/**
 * A context map holding `backend` and who is signed in (the local admin unless `principal` says
 * otherwise, `null`: unknown), for `mount(Component, { context })` in tests and embeddings.
 */
export function backendContext(backend: Backend, principal: Principal | null = LOCAL_ADMIN): Map<unknown, unknown> {
  return new Map<unknown, unknown>([
    [KEY, backend],
    [ACCESS_KEY, new Access(principal)],
  ]);
}
