/**
 * Which interface each attempt goes to (ADR 0020 failover, ADR 0034 tenant binding): a call that is not bound
 * follows the connection's hint, a keyed send's route stays within its tenant whatever other calls do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClientError } from '../../../src/client/index.js';
import { InterfaceRoutes } from '../../../src/client/connection/interface-route.js';

describe('InterfaceRoutes', () => {
  it('an unbound call follows the hint, which a failure that sent nothing moves on', () => {
    const routes = new InterfaceRoutes(['t1', 't2', undefined]);
    const call = routes.route();
    expect(call.next()).toBe(0);
    call.notSent();
    expect(routes.current).toBe(1);
    expect(call.next()).toBe(1);
    call.notSent();
    call.notSent();
    expect(call.next()).toBe(2);
  });

  it('a bound call starts on the hint when it serves its tenant, else on the next interface of its tenant', () => {
    const routes = new InterfaceRoutes(['t1', 't2', 't1']);
    expect(routes.route({ tenant: 't1' }).next()).toBe(0);
    expect(routes.route({ tenant: 't2' }).next()).toBe(1);
    routes.passOver(0);
    expect(routes.route({ tenant: 't2' }).next()).toBe(1);
    expect(routes.route({ tenant: 't1' }).next()).toBe(2);
  });

  it('a bound call moves only among the interfaces of its tenant, and stays when there is no other', () => {
    const routes = new InterfaceRoutes(['t1', 't2', 't1', undefined]);
    const call = routes.route({ tenant: 't1' });
    expect(call.next()).toBe(0);
    call.notSent();
    expect(call.next()).toBe(2);
    call.notSent();
    expect(call.next()).toBe(0);
    const alone = routes.route({ tenant: undefined });
    expect(alone.next()).toBe(3);
    alone.notSent();
    expect(alone.next()).toBe(3);
  });

  it('a bound call refuses before sending when no interface serves its tenant', () => {
    const routes = new InterfaceRoutes(['t1']);
    expect(routes.serves('t1')).toBe(true);
    expect(routes.serves('t2')).toBe(false);
    expect(() => routes.route({ tenant: 't2' }).next()).toThrow(ClientError);
  });

  it('concurrent calls: bound routes never leave their tenant, and concurrent failures move the hint once', () => {
    const tenants = fc.constantFrom<string | undefined>('t1', 't2', undefined);
    fc.assert(
      fc.property(
        fc.array(tenants, { minLength: 1, maxLength: 6 }),
        // Interleaved steps of many calls: [which call, 'next' or 'notSent'].
        fc.array(fc.tuple(fc.nat(7), fc.boolean()), { maxLength: 60 }),
        (layout, steps) => {
          const routes = new InterfaceRoutes(layout);
          const calls = Array.from({ length: 8 }, (_, n) => {
            const tenant = layout[n % layout.length];
            const bound = n % 2 === 0;
            return { route: routes.route(bound ? { tenant } : undefined), tenant, bound, started: false };
          });
          for (const [n, isNext] of steps) {
            const c = calls[n]!;
            if (isNext || !c.started) {
              const i = c.route.next();
              c.started = true;
              if (c.bound) expect(layout[i]).toBe(c.tenant);
            } else {
              c.route.notSent();
            }
          }
        },
      ),
    );
    // Three calls fail on interface 0 at once: the hint moves past it once, not three interfaces on.
    const routes = new InterfaceRoutes(['a', 'b', 'c', 'd']);
    const three = [routes.route(), routes.route(), routes.route()];
    for (const c of three) expect(c.next()).toBe(0);
    for (const c of three) c.notSent();
    expect(routes.current).toBe(1);
  });
});
