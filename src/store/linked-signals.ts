/**
 * Abort signals linked without `AbortSignal.any`, for waits that listen to a long-lived signal (a store's closing
 * signal, a server's drain): the stores' watches and the server's drain gate.
 *
 * Most links on a blocking send are between two signals that many waits share: a deadline slot (deadline-signal
 * .ts), a drain gate's end, a store's closing signal. Those links are made once and shared (ADR 0139): a fresh
 * AbortController per link cost keyed sends on the memory store 6 to 10% of their throughput on Node 20, in its
 * construction, its listeners and the garbage they leave.
 */
import { setMaxListeners } from 'node:events';

/** Signals that live as long as their owner and are listened to by many waits: never linked per call. */
const LONG_LIVED = new WeakSet<AbortSignal>();
/** Shared signals that are sure to abort soon (deadline slots, and links to them): what a shared link needs. */
const ENDS_SOON = new WeakSet<AbortSignal>();
/** Shared links, by their two signals. An entry leaves when its link aborts, which one side is sure to do soon. */
const sharedLinks = new WeakMap<AbortSignal, Map<AbortSignal, AbortSignal>>();

/**
 * `controller`, its signal allowed any number of listeners: a store's closing signal gets one from every wait in
 * progress (`linkSignals`), and past Node's default of ten a busy server would print a leak warning that is not one.
 * The signal is also marked as long-lived, so links between it and a deadline slot are shared.
 */
export function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  LONG_LIVED.add(controller.signal);
  return controller;
}

/**
 * Marks `signal` as shared by many waits and sure to abort soon (a deadline slot): a link between it and another
 * shared signal is made once, shared by every wait that asks for it, and dropped when it aborts.
 */
export function sharedUntilSoon(signal: AbortSignal): AbortSignal {
  setMaxListeners(0, signal);
  ENDS_SOON.add(signal);
  return signal;
}

function isShared(s: AbortSignal): boolean {
  return LONG_LIVED.has(s) || ENDS_SOON.has(s);
}

const NOTHING_TO_DISPOSE = () => {};

/**
 * One signal that aborts when either does, and a `dispose` that unlinks it. Not `AbortSignal.any`: on Node 20 that
 * leaves a WeakRef in the long-lived signal's set for every call (one per watch, for the store's whole life: a
 * leak of about 70 bytes per blocking send, found by bench/rss-soak.mjs).
 *
 * When both signals are shared and one of them is sure to abort soon, the link is shared too (ADR 0139): the
 * same signal for every caller, `dispose` a no-op, and the link gone once it aborts. Two long-lived signals are
 * linked per call, as any other pair: a shared link between them would live as long as the longer of the two.
 */
export function linkSignals(
  a: AbortSignal,
  b: AbortSignal | undefined,
): { signal: AbortSignal; dispose(): void } {
  if (b === undefined || a === b) return { signal: a, dispose: NOTHING_TO_DISPOSE };
  if ((ENDS_SOON.has(a) || ENDS_SOON.has(b)) && isShared(a) && isShared(b))
    return { signal: sharedLink(a, b), dispose: NOTHING_TO_DISPOSE };
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

/** The one link of `a` and `b` (either order), made on first use. */
function sharedLink(a: AbortSignal, b: AbortSignal): AbortSignal {
  const found = sharedLinks.get(a)?.get(b) ?? sharedLinks.get(b)?.get(a);
  if (found) return found;
  const ctl = new AbortController();
  const signal = sharedUntilSoon(ctl.signal);
  if (a.aborted || b.aborted) {
    // Not remembered: an aborted pair is asked for rarely, and the entry would never be dropped.
    ctl.abort(a.aborted ? a.reason : b.reason);
    return signal;
  }
  let byB = sharedLinks.get(a);
  if (byB === undefined) sharedLinks.set(a, (byB = new Map<AbortSignal, AbortSignal>()));
  const links = byB;
  links.set(b, signal);
  const abort = (event: Event) => {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
    links.delete(b);
    ctl.abort((event.target as AbortSignal).reason);
  };
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  return signal;
}
