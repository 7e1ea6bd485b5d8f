// Shared setup for component tests: mount into a fresh <div> in the document, clean up after the test.
import { onTestFinished } from 'vitest';
import { flushSync, mount, tick, unmount, type Component, type MountOptions } from 'svelte';

export interface Mounted {
  /** The <div> the component is mounted into, attached to document.body. */
  target: HTMLElement;
  /** Unmounts the component and removes `target`. Safe to call more than once; runs on its own when the test finishes. */
  unmount(): void;
}

/**
 * Mounts `component` into a new <div> appended to document.body and registers its cleanup
 * (unmount, then remove the <div>) for the end of the current test. Does not flush: call
 * `flushSync()` or `await settle()` afterwards.
 */
export function mountInBody<Props extends Record<string, any>, Exports extends Record<string, any>>(
  component: Component<Props, Exports, any>,
  options: Omit<MountOptions<Props>, 'target'>,
): Mounted {
  const target = document.createElement('div');
  document.body.appendChild(target);
  let app: Exports | null = mount(component, { ...options, target } as MountOptions<Props>);
  const cleanup = () => {
    if (app) unmount(app);
    app = null;
    target.remove();
  };
  onTestFinished(cleanup);
  return { target, unmount: cleanup };
}

/**
 * Lets pending work run, then flushes Svelte's updates: `rounds` times a tick followed by a
 * macrotask (`setTimeout(0)`), or by a microtask only when `macrotasks` is false.
 */
export async function settle({ rounds = 10, macrotasks = true }: { rounds?: number; macrotasks?: boolean } = {}) {
  for (let i = 0; i < rounds; i++) {
    await tick();
    await (macrotasks ? new Promise((r) => setTimeout(r, 0)) : Promise.resolve());
  }
  flushSync();
}

/** Types `value` into an input as a user would (sets it, fires `input`). */
export function type(el: HTMLElement | null, value: string) {
  const input = el as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

/** Ticks or unticks a checkbox as a user would (fires `change`, then `input`). */
export function check(el: HTMLElement | null, checked: boolean) {
  const input = el as HTMLInputElement;
  input.checked = checked;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  input.dispatchEvent(new Event('input', { bubbles: true }));
}
