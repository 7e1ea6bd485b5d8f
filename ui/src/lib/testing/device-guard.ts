/**
 * A `Backend` that answers as the remote listener answers a paired device's session: each call is
 * taken to the operation it sends (the catalog's name), and one the server refuses a device — its
 * `device` cell in operations.gen.ts, printed from `domain::authority::admission` — is recorded in
 * `refused` and answered `forbidden` (403), as the server would; the rest go to the fake behind it.
 * A test of what the UI offers a device asserts `refused` stays empty.
 */
import { ApiError, type Backend } from '../backend/backend';
import { DeclaredBackend, type AnswerOf, type Declared } from '../backend/operations';
import { OPERATIONS } from '../backend/operations.gen';

type Operation = keyof typeof OPERATIONS;

/** Whether the server admits a paired device to `op` (read from the generated catalog, not from the UI's own `Access`). */
export function admitsDevice(op: Operation): boolean {
  const cell: string = OPERATIONS[op].device;
  return cell === 'allowed' || cell === 'step-up';
}

/** The `Backend` methods each transport writes itself, and the operation each one is. */
const OWN: Record<Exclude<keyof Backend, keyof DeclaredBackend>, Operation> = {
  subscribe: 'events',
  exportAudit: 'export_audit',
  saveAuditExport: 'save_audit_export',
  setLanguage: 'set_language',
  autostart: 'autostart',
  setAutostart: 'set_autostart',
};

/**
 * The operation each declared method sends, found by calling it on a backend whose `run` only
 * notes the name: the same code the web and the window backends run, so no table to keep by hand.
 */
function declaredOperations(): Map<string, Operation> {
  class Probe extends DeclaredBackend {
    sent: Declared | null = null;
    run<K extends Declared>(name: K): Promise<AnswerOf<K>> {
      this.sent = name;
      return new Promise(() => {});
    }
  }
  const probe = new Probe();
  const found = new Map<string, Operation>();
  for (const method of Object.getOwnPropertyNames(DeclaredBackend.prototype)) {
    if (method === 'constructor') continue;
    probe.sent = null;
    void (probe as unknown as Record<string, (...args: unknown[]) => unknown>)[method]('x', 'x', 'x');
    if (probe.sent === null) throw new Error(`${method} sends no operation`);
    found.set(method, probe.sent);
  }
  return found;
}

export type DeviceGuard = {
  /** The backend to mount the UI with. */
  backend: Backend;
  /** The operations asked for that the server refuses a device, in the order asked. */
  refused: Operation[];
  /** Every operation asked for, in the order asked. */
  asked: Operation[];
};

/** `fake` as a paired device's session sees the server. */
export function asDevice<B extends Backend>(fake: B): DeviceGuard {
  const operations = declaredOperations();
  for (const [method, op] of Object.entries(OWN)) operations.set(method, op);
  const refused: Operation[] = [];
  const asked: Operation[] = [];
  const backend = new Proxy(fake, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      const fixed = operations.get(prop);
      if (fixed === undefined && prop !== 'run') return value.bind(target);
      return (...args: unknown[]) => {
        const op = fixed ?? (args[0] as Operation);
        asked.push(op);
        if (!admitsDevice(op)) {
          refused.push(op);
          const refusal = new ApiError('forbidden', `${op} is not for a paired device`, null, 403);
          if (prop === 'subscribe') return () => {};
          return Promise.reject(refusal);
        }
        return value.apply(target, args);
      };
    },
  });
  return { backend, refused, asked };
}
