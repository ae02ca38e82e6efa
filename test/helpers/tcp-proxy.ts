/**
 * A loopback TCP proxy for fault tests: it stands between a client (a store's pool, a server process) and a real
 * service (PostgreSQL) and can cut or stall every connection on command, the way a failover or a network
 * partition does. Connection faults are what the store's timeouts and evictions exist for (docs/guides/
 * stores-and-scale-out.md "When the database goes silent", ADR 0063), so they are tested on real sockets, not mocks.
 *
 * - `pass` (the start): bytes flow both ways.
 * - `cut()`: every open connection is destroyed now, both sides (a reset, as when a primary dies); new
 *   connections pass.
 * - `stall()`: every open connection stays open and nothing more is forwarded either way, nor any close (a
 *   partition: the peers' kernels still accept bytes, no answer ever comes). What the peers send is read and
 *   held, so the counters see it and a client closing its side is seen at once. With `{ newConnections: true }` connections opened later are stalled too (accepted, never
 *   connected onwards), else they pass.
 * - `heal()`: stalled connections resume where they stopped, and new connections pass.
 * Given several targets, it is a round-robin balancer: each new connection goes to the next target in turn, so a
 * client that reconnects after a `cut()` lands on another one.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** What one proxied connection did. */
export interface ProxiedConnection {
  /** Order of arrival, from 1. */
  readonly id: number;
  /** Bytes forwarded from the client to the service, and back. */
  readonly bytesUp: number;
  readonly bytesDown: number;
  /** Still open on the client's side. */
  readonly open: boolean;
  /** Stalled now. */
  readonly stalled: boolean;
  /** Closed by `cut()`. */
  readonly cut: boolean;
  /** The index of the target it was sent to (0 with a single target). */
  readonly target: number;
}

/** A running proxy. */
export interface TcpProxy {
  /** The port clients connect to, on 127.0.0.1. */
  readonly port: number;
  /** Destroys every open connection now. */
  cut(): void;
  /** Stops forwarding on every open connection (and on new ones with `newConnections`). */
  stall(options?: { newConnections?: boolean }): void;
  /** Resumes every stalled connection; new connections pass again. */
  heal(): void;
  /** Every connection seen so far, oldest first. */
  connections(): ProxiedConnection[];
  /** Connections open on the client's side now. */
  openCount(): number;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

/** One side's bytes and close, held while the pair is stalled. */
class Held {
  chunks: Buffer[] = [];
  ended = false;
}

class Pair {
  bytesUp = 0;
  bytesDown = 0;
  open = true;
  stalled = false;
  cut = false;
  upstream: Socket | undefined;
  /** What the client sent during a stall, and what the service sent. */
  readonly heldUp = new Held();
  readonly heldDown = new Held();

  constructor(
    readonly id: number,
    readonly client: Socket,
    readonly target: number,
  ) {
    // The client's side is watched from the start, so a client that gives up on a stalled connection (closes
    // its socket) is seen at once, as the counters promise.
    client.on('data', (chunk: Buffer) => this.forward(chunk, 'up'));
    client.on('end', () => this.end('up'));
    client.on('close', () => {
      this.open = false;
      if (!this.stalled) this.upstream?.destroy();
    });
    client.on('error', () => undefined);
  }

  /** Connects onwards. Sockets are read all the time; a stall holds what they bring instead of passing it on. */
  start(host: string, port: number): void {
    const up = connect({ host, port });
    this.upstream = up;
    up.setNoDelay(true);
    this.client.setNoDelay(true);
    up.on('data', (chunk: Buffer) => this.forward(chunk, 'down'));
    up.on('end', () => this.end('down'));
    up.on('close', () => {
      if (!this.stalled) this.client.destroy();
    });
    // Errors end the pair; they are the faults under test, not the test's failure.
    up.on('error', () => undefined);
    this.flush();
  }

  private forward(chunk: Buffer, way: 'up' | 'down'): void {
    if (way === 'up') this.bytesUp += chunk.length;
    else this.bytesDown += chunk.length;
    const to = way === 'up' ? this.upstream : this.client;
    if (this.stalled || to === undefined) (way === 'up' ? this.heldUp : this.heldDown).chunks.push(chunk);
    else to.write(chunk);
  }

  private end(way: 'up' | 'down'): void {
    const to = way === 'up' ? this.upstream : this.client;
    if (this.stalled || to === undefined) (way === 'up' ? this.heldUp : this.heldDown).ended = true;
    else to.end();
  }

  /** Delivers what a stall held, in order, closes included. */
  private flush(): void {
    const up = this.upstream;
    if (this.stalled || up === undefined) return;
    for (const [held, to] of [
      [this.heldUp, up],
      [this.heldDown, this.client],
    ] as const) {
      for (const c of held.chunks.splice(0)) to.write(c);
      if (held.ended) to.end();
      held.ended = false;
    }
    if (!this.open) up.destroy();
    else if (up.destroyed) this.client.destroy();
  }

  stall(): void {
    this.stalled = true;
  }

  heal(host: string, port: number): void {
    this.stalled = false;
    if (this.upstream === undefined) {
      // Held since it arrived, never connected onwards: it connects now (or goes, if its client went).
      if (this.open) this.start(host, port);
      return;
    }
    this.flush();
  }

  destroy(): void {
    this.cut = true;
    this.stalled = false;
    this.client.destroy();
    this.upstream?.destroy();
  }

  view(): ProxiedConnection {
    return {
      id: this.id,
      bytesUp: this.bytesUp,
      bytesDown: this.bytesDown,
      open: this.open,
      stalled: this.stalled,
      cut: this.cut,
      target: this.target,
    };
  }
}

/** Where a proxy forwards to. */
export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

/** Starts a proxy on an ephemeral port of 127.0.0.1 in front of `target` (several: round robin). */
export async function startTcpProxy(target: ProxyTarget | readonly ProxyTarget[]): Promise<TcpProxy> {
  const targets: readonly ProxyTarget[] = 'host' in target ? [target] : target;
  const pairs: Pair[] = [];
  let stallNew = false;
  const server: Server = createServer((client) => {
    const pair = new Pair(pairs.length + 1, client, pairs.length % targets.length);
    pairs.push(pair);
    const to = targets[pair.target]!;
    // Accepted and held when new connections stall: the client's handshake waits for an answer that never comes.
    if (stallNew) pair.stall();
    else pair.start(to.host, to.port);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    cut() {
      for (const p of pairs) if (p.open) p.destroy();
    },
    stall(options = {}) {
      stallNew = options.newConnections === true;
      for (const p of pairs) if (p.open) p.stall();
    },
    heal() {
      stallNew = false;
      for (const p of pairs) if (p.stalled) p.heal(targets[p.target]!.host, targets[p.target]!.port);
    },
    connections: () => pairs.map((p) => p.view()),
    openCount: () => pairs.filter((p) => p.open).length,
    async close() {
      for (const p of pairs) p.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
