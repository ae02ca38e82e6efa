/**
 * The channel of one gRPC interface, and the wait for it to be ready before a request is written (ADR 0111). A
 * channel that cannot connect (refused, unreachable, a TLS handshake that fails) or does not connect before the
 * attempt's time is up never carried the request: that is "not sent", as a refused TCP connect is for HTTP
 * (docs/semantics.md §7), so the call is retried or moves to the card's next interface. Only once the channel is
 * READY is the call started; whatever fails after that may have reached the peer.
 *
 * grpc-js keeps a channel's connection between calls; a connection lost while idle is made again by the next
 * call. While a channel is in TRANSIENT_FAILURE it retries by itself with its reconnect backoff (200 ms at first,
 * up to 10 s, like the client's own retries), and a call in the meantime fails at once as not sent.
 */
import { Client, ChannelCredentials, connectivityState, type ChannelOptions } from '@grpc/grpc-js';
import type { AttemptSignal } from '../transport/transport.js';
import { TransportError } from '../transport/transport-error.js';
import type { GrpcTarget } from './grpc-target.js';

/** The channel options the transport sets unless the caller's `channelOptions` say otherwise. */
export const DEFAULT_GRPC_CHANNEL_OPTIONS: Readonly<ChannelOptions> = {
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 10_000,
};

/** What a channel is built from. */
export interface GrpcChannelOptions {
  readonly target: GrpcTarget;
  /** TLS credentials for a TLS channel (default: the system's roots, `ChannelCredentials.createSsl()`). */
  readonly tlsCredentials?: ChannelCredentials | undefined;
  /** grpc-js channel options, over the defaults. */
  readonly channelOptions?: ChannelOptions | undefined;
  /** The most one answer message may hold, in bytes (`grpc.max_receive_message_length`). */
  readonly maxReceiveBytes: number;
}

/** One interface's grpc-js client. */
export class GrpcChannel {
  /** The grpc-js client whose channel carries every call to this interface. */
  readonly client: Client;
  /** `host:port`. */
  readonly address: string;

  constructor(options: GrpcChannelOptions) {
    const { target } = options;
    const credentials = target.tls
      ? (options.tlsCredentials ?? ChannelCredentials.createSsl())
      : ChannelCredentials.createInsecure();
    this.address = target.address;
    this.client = new Client(target.address, credentials, {
      ...DEFAULT_GRPC_CHANNEL_OPTIONS,
      'grpc.max_receive_message_length': options.maxReceiveBytes,
      ...options.channelOptions,
    });
  }

  /**
   * Resolves once the channel is READY. Throws a not-sent TransportError when it fails to connect, or when the
   * attempt's signal fires first (the caller's abort is the attempt's to translate, and is thrown as its reason).
   */
  async ready(scope: AttemptSignal): Promise<void> {
    const channel = this.client.getChannel();
    const { signal } = scope;
    for (;;) {
      if (signal.aborted) throw this.notConnected(scope, 'the attempt ended before the channel was ready');
      const state = channel.getConnectivityState(true);
      if (state === connectivityState.READY) return;
      if (state === connectivityState.TRANSIENT_FAILURE)
        throw new TransportError(
          'not-sent',
          'CONNECTION_REFUSED',
          `request to ${this.address} not sent: the gRPC channel could not connect (is the agent running, on this port, with this TLS setting?)`,
        );
      if (state === connectivityState.SHUTDOWN)
        throw new TransportError(
          'not-sent',
          'CONNECTION_REFUSED',
          `the gRPC channel to ${this.address} is closed`,
        );
      await new Promise<void>((resolve) => {
        const onAbort = (): void => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        const until = scope.timeoutAt ?? scope.deadlineAt ?? Infinity;
        channel.watchConnectivityState(state, until, () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
      if (!signal.aborted && Date.now() >= (scope.timeoutAt ?? scope.deadlineAt ?? Infinity))
        throw this.notConnected(scope, 'the channel did not connect in time');
    }
  }

  /** Closes the channel; calls in flight are cancelled. */
  close(): void {
    this.client.close();
  }

  private notConnected(scope: AttemptSignal, why: string): unknown {
    const notSent = new TransportError(
      'not-sent',
      'CONNECT_TIMEOUT',
      `request to ${this.address} not sent: ${why}`,
    );
    // The caller's abort stays the caller's; a timer's end is "not sent" (call-scope.ts keeps it so).
    return scope.signal.aborted ? scope.translate(notSent) : notSent;
  }
}
