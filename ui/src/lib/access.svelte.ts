/**
 * Who the console's credential stands for (`Backend.session()`), and what the UI offers for it. The
 * server decides every request by role (`agent` and `viewer` beside each other, each included in
 * `operator`, included in `admin`) and by kind: a paired device (a phone signed in on the remote
 * listener, `serve --listen`) is admitted only to reading the queue, the audit log and the decision
 * history, and to deciding with its passkey (the catalog's grades, src/domain/catalog.rs). The UI
 * only leaves out what the credential may not do, so that no control is offered, and no view
 * loaded, that the server would refuse.
 *
 * The root component fills one `Access` and puts it in context (`setAccess`); components read it with
 * `getAccess()`. Without one in context (a component mounted on its own), nothing admin-only is offered.
 */
import { getContext, setContext } from 'svelte';
import type { Principal, Role } from './backend/backend';
import { OPERATIONS } from './backend/operations.gen';

/** An operation of the catalog, by name (operations.gen.ts). */
export type OperationName = keyof typeof OPERATIONS;

/** The context key (exported for `backendContext`). */
export const ACCESS_KEY = Symbol('access');
/** What each role may do besides its own (as the server's `Role::includes`). */
const INCLUDES: Record<Role, readonly Role[]> = {
  agent: ['agent'],
  viewer: ['viewer'],
  operator: ['operator', 'agent', 'viewer'],
  admin: ['admin', 'operator', 'agent', 'viewer'],
};

/**
 * Whether the server admits a paired device's session to `op`: its cell in the authorization table
 * (`device` in operations.gen.ts), allowed, or allowed with a passkey step-up for that very call.
 */
export function deviceAdmitted(op: OperationName): boolean {
  const cell: string = OPERATIONS[op].device;
  return cell === 'allowed' || cell === 'step-up';
}

/** Whether `role` includes `needed` (an admin may do what an operator may; an agent never what a viewer may, nor the reverse). */
export function roleAtLeast(role: Role | null | undefined, needed: Role): boolean {
  return role != null && Object.hasOwn(INCLUDES, role) && INCLUDES[role].includes(needed);
}

export class Access {
  /** `null` while not known (or when asking failed): nothing admin-only is offered then. */
  principal = $state.raw<Principal | null>(null);

  constructor(principal: Principal | null = null) {
    this.principal = principal;
  }

  get role(): Role | null {
    return this.principal?.role ?? null;
  }

  /** Grants, settings, engines: made and changed by admins only. */
  get admin(): boolean {
    return roleAtLeast(this.role, 'admin');
  }

  /** The console itself (the queue, decisions): operators and admins; an agent's token cannot use it. */
  get console(): boolean {
    return roleAtLeast(this.role, 'operator');
  }

  /** The team's figures only (a `viewer` token): the dashboards, nothing of the queue. */
  get dashboardsOnly(): boolean {
    return !this.console && roleAtLeast(this.role, 'viewer');
  }

  /** A paired device: a phone signed in with its passkey on the remote listener. */
  get device(): boolean {
    return this.principal?.kind === 'device';
  }

  /**
   * Whether this kind of credential is offered operation `op`: a paired device only what the server
   * admits a device to (`deviceAdmitted`: no claim, snooze, grant, setting, figure, engine, token,
   * device or export); any other kind, every operation — its role decides, with `admin`,
   * `console` and `dashboardsOnly`, where a control is drawn.
   */
  offers(op: OperationName): boolean {
    return !this.device || deviceAdmitted(op);
  }
}

/** Called once by the root component. */
export function setAccess(access: Access): void {
  setContext(ACCESS_KEY, access);
}

/** The nearest root's `Access`; a fresh unknown one (nothing admin-only) when none is in context. */
export function getAccess(): Access {
  return getContext<Access | undefined>(ACCESS_KEY) ?? new Access(null);
}
