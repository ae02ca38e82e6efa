/**
 * Abort signals linked without `AbortSignal.any`, for waits that listen to a long-lived signal (a store's closing
 * signal, a server's drain): the stores' watches and the server's drain gate.
 */
import { setMaxListeners } from 'node:events';

/**
 * `controller`, its signal allowed any number of listeners: a store's closing signal gets one from every wait in
 * progress (`linkSignals`), and past Node's default of ten a busy server would print a leak warning that is not one.
 */
export function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * One signal that aborts when either does, and a `dispose` that unlinks it. Not `AbortSignal.any`: on Node 20 that
 * leaves a WeakRef in the long-lived signal's set for every call (one per watch, for the store's whole life: a
 * leak of about 70 bytes per blocking send, found by bench/rss-soak.mjs).
 */
export function linkSignals(
  a: AbortSignal,
  b: AbortSignal | undefined,
): { signal: AbortSignal; dispose(): void } {
  if (b === undefined) return { signal: a, dispose: () => {} };
  const ctl = new AbortController();
  // The reason passes through: an abort without one builds a DOMException, stack and all, every time.
  const abort = (event: Event) => ctl.abort((event.target as AbortSignal).reason);
  if (a.aborted || b.aborted) ctl.abort(a.aborted ? a.reason : b.reason);
  else {
    a.addEventListener('abort', abort, { once: true });
    b.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: ctl.signal,
    dispose: () => {
      a.removeEventListener('abort', abort);
      b.removeEventListener('abort', abort);
    },
  };
}
