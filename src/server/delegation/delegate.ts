/**
 * Delegation from inside an agent (docs/semantics.md §4 "Delegation", ADR 0040): one child A2A send per call,
 * made safe to repeat by two durable steps (ADR 0038).
 *
 * - `<name>.plan` records the exact child message before anything is sent: its messageId, its idempotency key
 *   (minted here once; a key the caller set is kept; none for a peer that does not honour keys, and the plan
 *   says so) and its limits. A resumed parent resends that identical message, so the child replays its task
 *   instead of running again (a fresh messageId or deadline would make the child refuse it as a conflict).
 * - `<name>.child` records the child's task id (or its direct reply) once known. A resumed parent that finds it
 *   sends nothing and watches that child. A resumed parent whose unkeyed send has no recorded answer reports
 *   the child `lost`: a resend could run it twice.
 *
 * After an ambiguous failure the client resends a keyed send with the same key (docs/semantics.md §7); a send
 * whose outcome is still unknown leaves `<name>.child` unrecorded, so the next resume resends with the key.
 *
 * Every child message carries its place in the chain (ADR 0061): one hop more than the parent, and the chain's
 * id. A child past the server's depth limit is refused here before anything is recorded or sent; and a child
 * gets the server's default budget as its deadline when nobody above it set one, so every chain ends by itself.
 *
 * The peer may be given as a function (ADR 0083), called here once the depth is checked and before anything is
 * recorded: a child that is not up yet fails this turn with `PeerUnavailableError`, and the next turn tries again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { keyHash, keyOf, mintKey, setKey } from '../../idempotency/index.js';
import type { Message, Task } from '../../protocol/model.js';
import type { AgentContext } from '../agent-executor.js';
import { StoreWriteError } from '../runner/write-retry.js';
import { cancelledAncestorIn } from './cancelled-subtrees.js';
import { peerOf, type PeerSource } from './peer-source.js';
import {
  childPosition,
  DEFAULT_DELEGATION_SETTINGS,
  depthExceeded,
  type DelegationSettings,
} from './delegation-chain.js';
import {
  DelegationHandle,
  MIN_LEASE_MS,
  readDelegationLimits as readChildLimits,
  withDelegationLimits,
  type DelegationLimits as ChildLimits,
  type DelegationPeer,
  type WatchOptions,
} from '../../delegation/index.js';

/** Options of `delegate`. */
export interface DelegateOptions extends Omit<WatchOptions, 'leaseMs'>, ChildLimits {
  /**
   * The step name the delegation records under. Default: `delegate.<turn>.<n>` for the n-th delegation of this
   * turn (the turn named by a hash of its message id), which a resumed turn reproduces by delegating in the same
   * order. Name it yourself when the order can vary.
   */
  readonly name?: string;
}

/** The plan step's record. */
interface SendPlan {
  readonly message: Message;
  readonly keyed: boolean;
}

/** The child step's record. */
type ChildRecord = { readonly taskId: string } | { readonly reply: Message } | { readonly lost: string };

const counters = new WeakMap<AgentContext, number>();
const children = new WeakMap<AgentContext, Set<DelegationHandle>>();
const hosts = new WeakMap<AgentContext, DelegationHost>();

/** What the server running a turn tells `delegate` about itself. */
export interface DelegationHost {
  readonly settings: DelegationSettings;
  /**
   * The active trace context as request headers, when the server has telemetry (ADR 0091): the child send carries
   * it even when the agent built its peer's client without telemetry, so the child's span joins the parent's trace.
   */
  readonly traceHeaders?: () => Record<string, string>;
  /**
   * Cancels every task running here below the task with `token`, the turn's own included; resolves when done.
   * Called when a child was cancelled because a task above its parent was (ADR 0062).
   */
  readonly onAncestorCancelled?: (token: string) => Promise<void>;
}

/**
 * Tells `delegate` about the server running `ctx` (its worker calls it for every turn); a context nobody bound
 * gets the default settings.
 */
export function bindDelegationHost(ctx: AgentContext, host: DelegationHost): void {
  hosts.set(ctx, host);
}

/** Thrown out of the child step so that an unknown keyed outcome is not recorded and a resume resends. */
class UnknownKeyedOutcome extends Error {}

/**
 * Sends `message` to a child agent through `peer` (an `A2AClient`, or a function giving one when first needed:
 * `lazyPeer`) and returns the child's handle. The child
 * inherits the parent's own budget when the parent runs under one. Cancelling the parent (its `signal`) cancels
 * the child while it is unsettled; a parent that fails should have `settleChildren` called for it.
 * @throws a definite refusal of the send (the A2A error), a `StepError`, a `StaleWriterError`; an A2A error
 *   `DELEGATION_DEPTH_EXCEEDED` (nothing recorded or sent) when the child would be past the depth limit;
 *   `PeerUnavailableError` (nothing recorded or sent) when `peer` is a function that threw or rejected
 */
export async function delegate(
  ctx: AgentContext,
  peer: PeerSource,
  message: string | Message,
  options: DelegateOptions = {},
): Promise<DelegationHandle> {
  const host = hosts.get(ctx);
  const settings = host?.settings ?? DEFAULT_DELEGATION_SETTINGS;
  const position = childPosition(ctx.taskId, ctx.message);
  if (position.hop > settings.maxDepth)
    throw depthExceeded(position.hop, settings.maxDepth, position.chainId);
  const client = await peerOf(peer);
  const name = options.name ?? defaultName(ctx);
  const limits = inheritedLimits(ctx, options);
  let planned = false;
  const plan = await ctx.step<SendPlan>(`${name}.plan`, () => {
    planned = true;
    // The default budget counts from the plan, which a resumed parent finds recorded: same message, same digest.
    const deadline =
      limits.deadline ??
      (settings.defaultBudgetMs === undefined ? undefined : Date.now() + settings.defaultBudgetMs);
    const base = withDelegationLimits(toMessage(message), {
      ...limits,
      ...(deadline !== undefined ? { deadline } : {}),
      ...position,
    });
    const key = keyOf(base) ?? (client.peerHonoursKeys ? mintKey() : undefined);
    return { message: key === undefined ? base : setKey(base, key), keyed: key !== undefined };
  });
  let first: Task | undefined;
  let record: ChildRecord;
  try {
    record = await ctx.step<ChildRecord>(`${name}.child`, async () => {
      if (!plan.keyed && !planned) {
        return { lost: 'a lost worker may have sent this unkeyed child message; it is not resent' };
      }
      const key = plan.keyed ? keyOf(plan.message)! : false;
      try {
        // Not cut by the parent's signal: a send cut mid-way could leave a child running that nobody knows of.
        // A parent cancelled meanwhile cancels the child once its id is known (below).
        const headers = host?.traceHeaders?.();
        const answer = await client.send(plan.message, {
          key,
          configuration: { returnImmediately: true },
          ...(headers !== undefined && Object.keys(headers).length > 0 ? { headers } : {}),
        });
        if ('message' in answer) return { reply: answer.message };
        first = answer.task;
        return { taskId: answer.task.id };
      } catch (err) {
        if ((err as { code?: unknown } | null)?.code !== 'OUTCOME_UNKNOWN') throw err;
        if (key !== false) throw new UnknownKeyedOutcome(String(err));
        return {
          lost: `the unkeyed child send's answer was lost and it cannot be resent safely: ${String(err)}`,
        };
      }
    });
  } catch (err) {
    // The child exists but its id could not be recorded: the parent was cancelled, fenced out or lost its store
    // while the send was answered. Nobody will watch this child, so it goes with the parent, as a tracked one would.
    if (first !== undefined && ctx.signal.aborted) await cancelOrphan(client, first);
    if (!(err instanceof UnknownKeyedOutcome)) throw err;
    return DelegationHandle.settled(undefined, {
      status: 'lost',
      reason:
        `the child send's outcome is unknown (key #${keyHash(keyOf(plan.message)!)}); a resumed parent resends it, ` +
        `and so does delegate() again with name "${name}" (same message, same key): ${err.message}`,
    });
  }
  if ('lost' in record) return DelegationHandle.settled(undefined, { status: 'lost', reason: record.lost });
  if ('reply' in record)
    return DelegationHandle.settled(undefined, { status: 'completed', message: record.reply });
  const watch: WatchOptions = {
    ...options,
    ...(limits.leaseMs !== undefined ? { leaseMs: limits.leaseMs } : {}),
  };
  const handle = DelegationHandle.watching(client, first ?? record.taskId, watch, async (outcome) => {
    // A child cancelled because a task above this parent was (its status names that task's token): the parent
    // is in the cancelled subtree too, and is cancelled before its agent reads the outcome (ADR 0062).
    const token = cancelledAncestorIn(outcome.task);
    if (outcome.status === 'canceled' && token !== undefined && position.ancestors.includes(token))
      await host?.onAncestorCancelled?.(token);
  });
  track(ctx, handle);
  return handle;
}

/**
 * Cancels every child this turn delegated that has not settled yet. The runner calls it when a turn ends FAILED
 * (a thrown error, a lost store write): the parent will not read those children, so they must not run on.
 * Resolves once every cancel was answered or gave up; never rejects.
 */
export async function settleChildren(ctx: AgentContext): Promise<void> {
  const set = children.get(ctx);
  if (set === undefined) return;
  await Promise.all([...set].filter((h) => !h.isSettled).map((h) => h.cancel()));
}

/** Cancels a child whose id the parent could not record; resolves once the cancel was answered or gave up. */
async function cancelOrphan(client: DelegationPeer, first: Task): Promise<void> {
  await DelegationHandle.watching(client, first, { pollMs: 60_000 }).cancel();
}

function track(ctx: AgentContext, handle: DelegationHandle): void {
  let set = children.get(ctx);
  if (set === undefined) {
    set = new Set();
    children.set(ctx, set);
    ctx.signal.addEventListener(
      'abort',
      () => {
        // A lost store write fails the parent: the runner's settleChildren cancels them then. Any other abort is
        // a cancel (or a takeover by a live worker: see ADR 0040) and the children go with the parent.
        if (ctx.signal.reason instanceof StoreWriteError) return;
        void settleChildren(ctx);
      },
      { once: true },
    );
  }
  set.add(handle);
  if (ctx.signal.aborted) void handle.cancel();
}

function defaultName(ctx: AgentContext): string {
  const n = (counters.get(ctx) ?? 0) + 1;
  counters.set(ctx, n);
  const turn = createHash('sha256').update(ctx.message.messageId).digest('hex').slice(0, 16);
  return `delegate.${turn}.${n}`;
}

/**
 * The child's limits: the caller's, its deadline capped by the parent's own budget (a child cannot outlive it).
 * @throws DelegationLimitsError when the parent's own message carries a malformed entry (nothing is sent)
 * @throws RangeError for a lease under `MIN_LEASE_MS`
 */
function inheritedLimits(ctx: AgentContext, options: DelegateOptions): ChildLimits {
  const parent = readChildLimits(ctx.message);
  const deadlines = [options.deadline, parent?.deadline].filter((d): d is number => d !== undefined);
  if (
    options.leaseMs !== undefined &&
    (!Number.isSafeInteger(options.leaseMs) || options.leaseMs < MIN_LEASE_MS)
  ) {
    throw new RangeError(`leaseMs must be an integer of at least ${MIN_LEASE_MS} ms, got ${options.leaseMs}`);
  }
  return {
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(deadlines.length > 0 ? { deadline: Math.min(...deadlines) } : {}),
  };
}

/** Text becomes a user message with a fresh messageId; a message is copied (the plan step records the copy). */
function toMessage(message: string | Message): Message {
  if (typeof message !== 'string') return { ...message };
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: message }] };
}
