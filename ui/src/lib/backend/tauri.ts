/**
 * `Backend` over Tauri IPC, for the desktop window: each method invokes one Rust command, and the
 * core's changes arrive as Tauri events (`queue`, `resync`, `open`).
 * Only `main.ts` imports this file; components receive the `Backend` from context and never import Tauri.
 */
import { invoke, type InvokeArgs } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import {
  ApiError,
  type Backend,
  type BackendEvent,
  type ErrorBody,
  type ExportFormat,
  type Principal,
  type SavedFile,
  type Subscriber,
  queueEventFrom,
} from './backend';
import { OPERATIONS } from './operations.gen';
import { DeclaredBackend, windowArgs, type AnswerOf, type Declared, type Request } from './operations';

type Operations = typeof OPERATIONS;

/** A command the desktop app registers: an operation the catalog marks `window`. */
export type TauriCommand = { [K in keyof Operations]: Operations[K]['window'] extends true ? K : never }[keyof Operations];

/** The commands the desktop app registers (the catalog's window operations, operations.gen.ts); nothing else is invoked. */
export const TAURI_COMMANDS: readonly TauriCommand[] = (Object.keys(OPERATIONS) as (keyof Operations)[]).filter(
  (name): name is TauriCommand => OPERATIONS[name].window,
);

/** Who the desktop window is: the local admin (see `session`). */
export const DESKTOP_PRINCIPAL: Readonly<Principal> = { name: '', role: 'admin', kind: 'local' };

/** The events the desktop app emits to the window. */
export const TAURI_EVENTS = ['queue', 'resync', 'open'] as const;

export class TauriBackend extends DeclaredBackend implements Backend {
  /** Operation `name` as the window's command of that name, with its arguments as the core reads them. */
  run<K extends Declared>(name: K, request?: Request<K>): Promise<AnswerOf<K>> {
    return call(name as TauriCommand, windowArgs(name, request));
  }

  /** The whole export through IPC (the window has no HTTP of its own); the caller saves it. */
  exportAudit(format: ExportFormat): Promise<string> {
    return call('export_audit', { format });
  }

  /** The window's export: saved by the app in the Downloads folder (a download inside WebKitGTK goes nowhere reliable). */
  saveAuditExport(format: ExportFormat): Promise<SavedFile> {
    return call('save_audit_export', { format });
  }

  /** The app's notifications and tray follow the window's language choice. */
  setLanguage(choice: 'system' | 'en' | 'ja'): Promise<void> {
    return call('set_language', { language: choice });
  }

  /**
   * The desktop window is always the local admin. The `session` command adds the OS user's name,
   * which tells the window its own approvals of a call under a quorum (the two-person rule); should
   * it fail, the window is the local admin all the same, with an empty name.
   */
  async session(): Promise<Principal> {
    try {
      const me = await this.run('session');
      return { ...DESKTOP_PRINCIPAL, name: typeof me?.name === 'string' ? me.name : '' };
    } catch {
      return { ...DESKTOP_PRINCIPAL };
    }
  }

  autostart(): Promise<boolean | null> {
    return call('autostart');
  }

  setAutostart(enabled: boolean): Promise<boolean> {
    return call('set_autostart', { enabled });
  }

  /**
   * Listens to the app's events. There is no connection to lose: `open` is reported once, when all
   * listeners are attached (the consumer reloads then, covering anything emitted before), or
   * `stopped` if attaching failed. Stopping before the listeners are attached detaches them as
   * soon as they are; no event is delivered after stopping either way.
   */
  subscribe(sub: Subscriber): () => void {
    let stopped = false;
    const unlisteners: UnlistenFn[] = [];
    const deliver = (ev: BackendEvent | null) => {
      if (!stopped && ev) sub.onEvent(ev);
    };
    const handlers: Record<(typeof TAURI_EVENTS)[number], (payload: unknown) => void> = {
      queue: (payload) => deliver(queueEventFrom(payload)),
      resync: () => deliver({ kind: 'resync' }),
      open: (payload) => deliver(openEventFrom(payload)),
    };

    sub.onStatus?.({ state: 'connecting' });
    void Promise.allSettled(TAURI_EVENTS.map((name) => listen<unknown>(name, (e) => handlers[name](e.payload)))).then((results) => {
      let failure: unknown = null;
      for (const r of results) {
        if (r.status === 'fulfilled') unlisteners.push(r.value);
        else failure ??= r.reason;
      }
      if (stopped || failure !== null) detach(unlisteners);
      if (stopped) return;
      if (failure !== null) {
        stopped = true;
        const err = toApiError(failure);
        sub.onStatus?.({ state: 'stopped', error: new ApiError(err.code, `Cannot listen to the app's events (${err.message}).`, err.details) });
        return;
      }
      sub.onStatus?.({ state: 'open' });
    });

    return () => {
      if (stopped) return;
      stopped = true;
      detach(unlisteners);
    };
  }
}

/** Invokes one command; a rejection always becomes an `ApiError`. */
async function call<T>(cmd: TauriCommand, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw toApiError(e);
  }
}

/**
 * What a rejected `invoke` carries, as an `ApiError` (no HTTP status): the app's `{code, message,
 * details?}` as is; anything else (Tauri's own string errors such as an unknown command or bad
 * arguments, a thrown `Error`) is `internal`.
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e && typeof e === 'object' && !(e instanceof Error)) {
    const body = e as { [K in keyof ErrorBody]?: unknown };
    if (typeof body.code === 'string' && body.code !== '') {
      return new ApiError(body.code, typeof body.message === 'string' ? body.message : '', body.details);
    }
  }
  if (e instanceof Error) return new ApiError('internal', e.message);
  if (typeof e === 'string') return new ApiError('internal', e);
  let text: string;
  try {
    text = JSON.stringify(e) ?? String(e);
  } catch {
    text = String(e);
  }
  return new ApiError('internal', text);
}

/** An `open` payload `{item, reason}` (untrusted) as a `BackendEvent`; fields that are not strings count as `null`. */
export function openEventFrom(payload: unknown): BackendEvent | null {
  if (!payload || typeof payload !== 'object') return null;
  const { item, reason } = payload as { item?: unknown; reason?: unknown };
  return {
    kind: 'open',
    item: typeof item === 'string' && item !== '' ? item : null,
    reason: typeof reason === 'string' && reason.trim() !== '' ? reason : null,
  };
}

function detach(unlisteners: UnlistenFn[]): void {
  for (const un of unlisteners.splice(0)) {
    // Unlistening is itself an IPC call; a failure leaves a listener whose handler is muted anyway.
    void Promise.resolve()
      .then(un)
      .catch(() => {});
  }
}
