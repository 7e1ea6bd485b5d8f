/**
 * Who the console's credential stands for (`Backend.session()`), and what the UI offers for it. The
 * server decides every request by role (`agent` and `viewer` beside each other, each included in
 * `operator`, included in `admin`); the UI only leaves out what the role may not do, so that an
 * operator is not offered controls that would be refused.
 *
 * The root component fills one `Access` and puts it in context (`setAccess`); components read it with
 * `getAccess()`. Without one in context (a component mounted on its own), nothing admin-only is offered.
 */
import { getContext, setContext } from 'svelte';
import type { Principal, Role } from './backend/backend';

/** The context key (exported for `backendContext`). */
export const ACCESS_KEY = Symbol('access');
/** What each role may do besides its own (as the server's `Role::includes`). */
const INCLUDES: Record<Role, readonly Role[]> = {
  agent: ['agent'],
  viewer: ['viewer'],
  operator: ['operator', 'agent', 'viewer'],
  admin: ['admin', 'operator', 'agent', 'viewer'],
};

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
}

/** Called once by the root component. */
export function setAccess(access: Access): void {
  setContext(ACCESS_KEY, access);
}

/** The nearest root's `Access`; a fresh unknown one (nothing admin-only) when none is in context. */
export function getAccess(): Access {
  return getContext<Access | undefined>(ACCESS_KEY) ?? new Access(null);
}
