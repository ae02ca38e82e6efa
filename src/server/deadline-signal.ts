/**
 * Shared deadline signals. Creating an AbortController (and aborting it, which builds a DOMException) costs
 * tens of microseconds on Node 20 — more than the rest of a blocking send's bookkeeping. Blocking waits only need
 * "give up around this time", so waits whose deadlines fall in the same 100 ms slot share one signal.
 */

import { sharedUntilSoon } from '../store/linked-signals.js';

const SLOT_MS = 100;
const slots = new Map<number, AbortSignal>();

/** A signal that aborts within 100 ms after `timeoutMs` from now (never earlier). */
export function deadlineSignal(timeoutMs: number): AbortSignal {
  const slot = Math.ceil((Date.now() + timeoutMs) / SLOT_MS) * SLOT_MS;
  let signal = slots.get(slot);
  if (!signal) {
    const ctl = new AbortController();
    // Shared by every wait in its slot: many listeners are expected, not a leak; and sure to abort soon, so its
    // links to the long-lived signals (a drain gate's end, a store's closing) are shared too (ADR 0139).
    signal = sharedUntilSoon(ctl.signal);
    slots.set(slot, signal);
    const timer = setTimeout(() => {
      slots.delete(slot);
      ctl.abort();
    }, slot - Date.now());
    timer.unref?.();
  }
  return signal;
}
