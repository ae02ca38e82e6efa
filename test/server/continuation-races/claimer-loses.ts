/**
 * A thin wrapper around a real store that forces one interleaving no store produces on demand: the caller whose
 * `claimKey` claimed the key is held right after its claim until some other caller's `commit` succeeded, so the
 * claimer's own compare-and-set then loses. Everything else goes straight to the real store.
 */
import type {
  ClaimKeyInput,
  ClaimKeyResult,
  CommitResult,
  TaskStore,
  TaskWrite,
} from '../../../src/store/task-store.js';
import type { Scope } from '../../../src/store/scope.js';

/** The wrapped store, and `arm()` to start holding the next successful claim. */
export function claimerLosesTheRace(inner: TaskStore): { store: TaskStore; arm: () => void } {
  let armed = false;
  let holding = false;
  let otherCommitted: () => void = () => undefined;
  const committed = new Promise<void>((resolve) => (otherCommitted = resolve));

  async function claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    const res = await inner.claimKey(scope, input);
    if (armed && !holding && res.outcome === 'claimed') {
      holding = true;
      await committed;
    }
    return res;
  }

  async function commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    const res = await inner.commit(scope, taskId, write);
    if (holding && res.ok) otherCommitted();
    return res;
  }

  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'claimKey') return claimKey;
      if (prop === 'commit') return commit;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    store,
    arm: () => {
      armed = true;
    },
  };
}
