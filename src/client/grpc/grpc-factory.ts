/**
 * `grpcTransport(options)`: the transport factory the client's `transports` option takes to use a card's GRPC
 * interfaces (ADR 0110). Each interface gets its own channel, built when the client is; the URL is read as ADR
 * 0111 says (bare `host:port` is TLS unless `insecure`).
 */
import type { ChannelCredentials, ChannelOptions } from '@grpc/grpc-js';
import { BINDING_GRPC } from '../../protocol/constants.js';
import type { TransportFactory, TransportTarget } from '../transport/transport.js';
import { GrpcChannel } from './grpc-channel.js';
import { grpcTargetOf } from './grpc-target.js';
import { GrpcTransport } from './grpc-transport.js';

/** Options of `grpcTransport`. */
export interface GrpcTransportOptions {
  /**
   * Plaintext for a bare `host:port` URL (default false: TLS, as A2A §10 asks of gRPC). A URL with a scheme
   * decides by itself: `http://` / `grpc://` plaintext, `https://` / `grpcs://` TLS (ADR 0111).
   */
  readonly insecure?: boolean;
  /** The TLS credentials of TLS channels (default `credentials.createSsl()`: the system's root certificates). */
  readonly credentials?: ChannelCredentials;
  /**
   * grpc-js channel options, over the defaults (`grpc.initial_reconnect_backoff_ms` 200,
   * `grpc.max_reconnect_backoff_ms` 10,000, `grpc.max_receive_message_length` the client's `maxResponseBytes`).
   */
  readonly channelOptions?: ChannelOptions;
}

/**
 * The gRPC transport factory.
 *
 * @example
 * import { A2AClient } from 'a2a-once/client';
 * import { grpcTransport } from 'a2a-once/client/grpc';
 * const client = await A2AClient.fromCardUrl('https://agent.example.com', {
 *   transports: [grpcTransport()],
 *   preferredBindings: ['GRPC'],
 * });
 */
export function grpcTransport(options: GrpcTransportOptions = {}): TransportFactory {
  return {
    binding: BINDING_GRPC,
    create(target: TransportTarget) {
      const channel = new GrpcChannel({
        target: grpcTargetOf(target.url, options.insecure === true),
        tlsCredentials: options.credentials,
        channelOptions: options.channelOptions,
        maxReceiveBytes: target.maxResponseBytes,
      });
      return new GrpcTransport(target.url, target.tenant, channel);
    },
  };
}
