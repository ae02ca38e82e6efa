/**
 * The requests a node:http server is answering, so that a closing server lets them finish on connections it then
 * closes, instead of destroying sockets under answers that are on their way (ADR 0088): a client reads a
 * destroyed socket as "maybe it ran", an answer as what it is.
 */
import type { RequestListener, Server, ServerResponse } from 'node:http';

/** Tracks responses in flight; after `closing`, each one ends its connection. */
export class InFlight {
  readonly #open = new Set<ServerResponse>();
  #server: Server | undefined;

  /** `listener`, tracked. */
  around(listener: RequestListener): RequestListener {
    return (incoming, out) => {
      this.#open.add(out);
      if (this.#server !== undefined) keepNoLonger(out);
      // An answer sent with `Connection: close` ends its own connection. Idle connections are NOT closed here: a
      // client may be writing its next request on one at that very moment, and a POST cut so is ambiguous to it
      // ("maybe it ran"); left open, its request is answered (a send refused as "nothing ran", 503) and closed.
      out.once('close', () => this.#open.delete(out));
      listener(incoming, out);
    };
  }

  /** The server is closing: answers not yet started say `Connection: close`. */
  closing(server: Server): void {
    this.#server = server;
    for (const out of this.#open) keepNoLonger(out);
  }
}

function keepNoLonger(out: ServerResponse): void {
  if (!out.headersSent) out.setHeader('Connection', 'close');
}
