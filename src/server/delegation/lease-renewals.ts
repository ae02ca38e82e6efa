/**
 * Where a child hears from its parent (ADR 0039): each GetTask that carries the renewal header and was answered
 * with the task renews that task's lease. The renewal rides on an ordinary A2A read, so a parent needs no
 * operation beyond A2A, and a renewal only counts once the server answered the read, so only a caller allowed
 * to see the task can keep it alive.
 *
 * The record is per process: a parent's polls must reach the process that runs the child (one process, or
 * replicas behind a sticky balancer). A renewal that lands elsewhere is not seen, and the child's lease lapses.
 */
import type { Clock } from '../../store/clock.js';
import { systemClock } from '../../store/clock.js';
import type { FetchHandler } from '../http/fetch-handler.js';
import { LEASE_RENEWAL_HEADER } from './delegation-extension.js';

/** When each leased task was last renewed. */
export class LeaseRenewals {
  readonly #last = new Map<string, number>();
  constructor(readonly clock: Clock = systemClock) {}

  /** Records a renewal of `taskId` in `tenant` now. */
  renew(tenant: string, taskId: string): void {
    this.#last.set(`${tenant}\n${taskId}`, this.clock.now());
  }

  /** When the task was last renewed, if ever. */
  lastRenewal(tenant: string, taskId: string): number | undefined {
    return this.#last.get(`${tenant}\n${taskId}`);
  }

  /** Forgets a task (its turn ended: the lease no longer matters). */
  forget(tenant: string, taskId: string): void {
    this.#last.delete(`${tenant}\n${taskId}`);
  }
}

/**
 * The renewals of this process, for hosts that wire one registry between their HTTP handler and their agents
 * (`a2a-once serve` and its `delegating` demo agent). Servers that arm limits with their own registry ignore it.
 */
export const processLeaseRenewals = new LeaseRenewals();

const REST_GET_TASK = /^(?:\/([^/]+))?\/tasks\/([^/:?]+)$/;

/** `fetch` that also records the renewals its GetTask calls carry. */
export function withLeaseRenewals(fetch: FetchHandler, renewals: LeaseRenewals): FetchHandler {
  return async (request) => {
    if (!request.headers.has(LEASE_RENEWAL_HEADER)) return fetch(request);
    const target = await renewalTarget(request.clone());
    const response = await fetch(request);
    if (target === undefined || response.status !== 200) return response;
    if (target.rpc) {
      const body = (await response
        .clone()
        .json()
        .catch(() => undefined)) as { result?: unknown } | undefined;
      if (body?.result === undefined) return response;
    }
    renewals.renew(target.tenant, target.taskId);
    return response;
  };
}

async function renewalTarget(
  request: Request,
): Promise<{ tenant: string; taskId: string; rpc: boolean } | undefined> {
  const path = decodeURIComponent(new URL(request.url).pathname);
  if (request.method === 'GET') {
    const m = REST_GET_TASK.exec(path);
    return m ? { tenant: m[1] ?? '', taskId: m[2]!, rpc: false } : undefined;
  }
  if (request.method !== 'POST') return undefined;
  const body = (await request.json().catch(() => undefined)) as
    { method?: unknown; params?: { id?: unknown; tenant?: unknown } } | undefined;
  if (body?.method !== 'GetTask' || typeof body.params?.id !== 'string') return undefined;
  const tenant = typeof body.params.tenant === 'string' ? body.params.tenant : '';
  return { tenant, taskId: body.params.id, rpc: true };
}
