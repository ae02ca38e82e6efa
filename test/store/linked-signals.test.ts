/**
 * Shared links between shared signals (ADR 0139): a deadline slot linked to a long-lived signal (a drain gate's
 * end, a store's closing) is one signal for every wait that asks, it aborts when either side does, and it leaves
 * nothing on the long-lived signal once it has. Any other pair is linked per call, as before.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkSignals, sharedUntilSoon, unlimitedListeners } from '../../src/store/linked-signals.js';
import { deadlineSignal } from '../../src/server/deadline-signal.js';

const longLived = () => unlimitedListeners(new AbortController());
const soon = () => {
  const ctl = new AbortController();
  sharedUntilSoon(ctl.signal);
  return ctl;
};

describe('linkSignals between shared signals', () => {
  it('gives every caller the same link of a slot and a long-lived signal, in either order', () => {
    const end = longLived();
    const slot = soon();
    const one = linkSignals(slot.signal, end.signal);
    const two = linkSignals(end.signal, slot.signal);
    expect(two.signal).toBe(one.signal);
    expect(one.signal).not.toBe(slot.signal);
    one.dispose();
    two.dispose();
    // Disposing a shared link unlinks nothing: other waits still hold it.
    expect(getEventListeners(end.signal, 'abort')).toHaveLength(1);
    expect(one.signal.aborted).toBe(false);
  });

  it('aborts with the slot, then leaves no listener on the long-lived signal and makes a new link next time', () => {
    const end = longLived();
    const slot = soon();
    const first = linkSignals(slot.signal, end.signal).signal;
    slot.abort('slot over');
    expect(first.aborted).toBe(true);
    expect(first.reason).toBe('slot over');
    expect(getEventListeners(end.signal, 'abort')).toHaveLength(0);
    const next = soon();
    const second = linkSignals(next.signal, end.signal).signal;
    expect(second).not.toBe(first);
    expect(second.aborted).toBe(false);
  });

  it('aborts with the long-lived signal, with its reason', () => {
    const end = longLived();
    const slot = soon();
    const link = linkSignals(slot.signal, end.signal).signal;
    end.abort('draining');
    expect(link.aborted).toBe(true);
    expect(link.reason).toBe('draining');
    expect(getEventListeners(slot.signal, 'abort')).toHaveLength(0);
  });

  it('an already aborted side gives an aborted link, not a remembered one', () => {
    const end = longLived();
    end.abort('closed');
    const slot = soon();
    const link = linkSignals(slot.signal, end.signal).signal;
    expect(link.aborted).toBe(true);
    expect(link.reason).toBe('closed');
    expect(getEventListeners(slot.signal, 'abort')).toHaveLength(0);
  });

  it('links of links share too: a store linking the shared link with its closing signal', () => {
    const end = longLived();
    const closing = longLived();
    const slot = soon();
    const outer = linkSignals(linkSignals(slot.signal, end.signal).signal, closing.signal).signal;
    const again = linkSignals(linkSignals(slot.signal, end.signal).signal, closing.signal).signal;
    expect(again).toBe(outer);
    closing.abort('store closed');
    expect(outer.aborted).toBe(true);
    expect(outer.reason).toBe('store closed');
    // The inner link is untouched: the drain gate's waits go on.
    expect(linkSignals(slot.signal, end.signal).signal.aborted).toBe(false);
  });
});

describe('linkSignals per call', () => {
  it('links a shared signal and a per-call one afresh each time, and dispose unlinks it', () => {
    const end = longLived();
    const caller = new AbortController();
    const one = linkSignals(end.signal, caller.signal);
    const two = linkSignals(end.signal, caller.signal);
    expect(two.signal).not.toBe(one.signal);
    one.dispose();
    two.dispose();
    expect(getEventListeners(end.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('links two long-lived signals per call: a shared link would live as long as the longer one', () => {
    const a = longLived();
    const b = longLived();
    const one = linkSignals(a.signal, b.signal);
    expect(linkSignals(a.signal, b.signal).signal).not.toBe(one.signal);
    one.dispose();
  });

  it('gives the signal itself for a missing or identical second signal', () => {
    const a = new AbortController();
    expect(linkSignals(a.signal, undefined).signal).toBe(a.signal);
    expect(linkSignals(a.signal, a.signal).signal).toBe(a.signal);
  });
});

describe('deadline slots', () => {
  it('are shared: a wait linking its slot to a drain end shares the link, which ends with the slot', async () => {
    const end = longLived();
    const slotA = deadlineSignal(20);
    const slotB = deadlineSignal(20);
    const a = linkSignals(slotA, end.signal).signal;
    const b = linkSignals(slotB, end.signal).signal;
    // Both deadlines fall in one 100 ms slot unless the two calls straddled a slot boundary.
    if (slotA === slotB) expect(b).toBe(a);
    else expect(b).not.toBe(a);
    await new Promise((r) => setTimeout(r, 250));
    expect(a.aborted).toBe(true);
    expect(b.aborted).toBe(true);
    expect(getEventListeners(end.signal, 'abort')).toHaveLength(0);
  });

  it('10,000 waits over many slots leave no listener on the long-lived signal', async () => {
    const end = longLived();
    for (let i = 0; i < 10_000; i++) {
      const { signal } = linkSignals(deadlineSignal(1 + (i % 50)), end.signal);
      expect(signal.aborted).toBe(false);
      if (i % 1000 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(getEventListeners(end.signal, 'abort').length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 350));
    expect(getEventListeners(end.signal, 'abort')).toHaveLength(0);
  });
});
