/**
 * A timer that a cancel cuts short, so agents that wait stop as soon as their task is cancelled.
 */

/**
 * Waits `ms` milliseconds. Resolves `true` when the time passed, `false` as soon as `signal` aborts (at once
 * when it already has). Never rejects, so callers branch instead of catching.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
