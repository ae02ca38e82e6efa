/**
 * Which interface each attempt of a call goes to. A connection keeps one client-wide hint, the interface new
 * calls start on; a failure that certainly sent nothing moves it on (ADR 0020: safe by definition).
 *
 * A keyed send is bound to a tenant (ADR 0034): a key is scoped to its tenant (docs/semantics.md §1), so another
 * tenant would run the send again. Its attempts go only to interfaces of that tenant, and move among them on
 * the call's own route, whatever other calls do to the hint meanwhile. When no interface of the tenant can be
 * reached, the send fails there rather than move tenant.
 */
import { ClientError } from './client-error.js';

/** The tenant a send is bound to; `undefined` is the tenant of interfaces that name none. */
export interface TenantPin {
  readonly tenant: string | undefined;
}

function describeTenant(tenant: string | undefined): string {
  return tenant === undefined ? 'without a tenant' : `of tenant ${JSON.stringify(tenant)}`;
}

/** The interfaces of one connection, by tenant, and the hint new calls start on. */
export class InterfaceRoutes {
  private hint = 0;

  /** `tenants[i]` is the tenant of interface `i` (empty tenants already read as undefined). */
  constructor(private readonly tenants: readonly (string | undefined)[]) {}

  /** The interface new calls start on. */
  get current(): number {
    return this.hint;
  }

  /** Whether some interface belongs to `tenant`. */
  serves(tenant: string | undefined): boolean {
    return this.tenants.includes(tenant);
  }

  /** The interfaces of `tenant`, in order of preference. */
  indicesOf(tenant: string | undefined): number[] {
    return this.tenants.flatMap((t, i) => (t === tenant ? [i] : []));
  }

  /**
   * Moves the hint past `failed`, unless another call already moved it: concurrent failures on one interface
   * then move the hint once, instead of each skipping one more interface that may be fine.
   */
  passOver(failed: number): void {
    if (this.hint === failed) this.hint = (failed + 1) % this.tenants.length;
  }

  /** The route of one call: bound to `pin`'s tenant when given (a keyed send), else following the hint. */
  route(pin?: TenantPin): CallRoute {
    return new CallRoute(this, pin);
  }
}

/** The interfaces one call's attempts go to. */
export class CallRoute {
  private index: number | undefined;

  constructor(
    private readonly routes: InterfaceRoutes,
    private readonly pin: TenantPin | undefined,
  ) {}

  /**
   * The interface for the next attempt.
   *
   * @throws {ClientError} `NO_USABLE_INTERFACE` when no interface belongs to the pinned tenant (nothing sent).
   */
  next(): number {
    if (this.pin === undefined) return (this.index = this.routes.current);
    if (this.index === undefined) {
      const own = this.routes.indicesOf(this.pin.tenant);
      if (own.length === 0)
        throw new ClientError('NO_USABLE_INTERFACE', `no interface ${describeTenant(this.pin.tenant)}`);
      // The first of them from the hint on: the hint has moved past interfaces that sent nothing lately.
      const hint = this.routes.current;
      this.index = own.find((i) => i >= hint) ?? own[0]!;
    }
    return this.index;
  }

  /** The attempt certainly sent nothing: the next may go to another interface (of the same tenant, if bound). */
  notSent(): void {
    const failed = this.index;
    if (failed === undefined) return;
    this.routes.passOver(failed);
    if (this.pin === undefined) return;
    const own = this.routes.indicesOf(this.pin.tenant);
    this.index = own[(own.indexOf(failed) + 1) % own.length];
  }
}
