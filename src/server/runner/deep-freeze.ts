/**
 * Freezing what an agent is handed (ADR 0030). `ctx.message` and `ctx.task` are the stored objects themselves
 * (the stores do not copy, ADR 0007): the message a keyed retry's digest is compared with and the history
 * GetTask returns. Freezing them once, before the agent runs, costs a walk over a few small objects; a deep copy
 * per turn would cost more and still leave the stored objects open to any other holder.
 */

/**
 * Freezes `value` and everything reachable from it, and returns it. An object already frozen is taken as frozen
 * all the way down (this function freezes parents before children, so an object it froze is never left with
 * open children), which also makes a walk over a long history that earlier turns froze stop at once.
 * Typed arrays and other buffer views cannot be frozen and are left as they are (JSON never holds them).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) {
    return value;
  }
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i] as unknown);
  } else {
    for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}
