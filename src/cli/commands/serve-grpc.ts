/**
 * `serve --grpc-port N`: the gRPC binding (docs/guides/grpc.md, ADR 0108) beside HTTP, on `--host`. Its
 * packages (`@grpc/grpc-js`, `protobufjs`) are optional peers, loaded only when the flag is given, so a `serve`
 * without it runs without them installed; a missing one fails the command before the store opens.
 */
import type { GrpcServerHandle, serveGrpc } from '../../server/grpc/index.js';
import type { A2AServer } from '../../server/create-server.js';
import type { PrometheusEndpoint } from '../../otel/prometheus-endpoint.js';
import { checkCanListen } from '../port-check.js';
import { listenFailure } from './serve-listeners.js';

/** The packages `--grpc-port` loads (optional peers of a2a-once). */
export const GRPC_PACKAGES = ['@grpc/grpc-js', 'protobufjs'] as const;

/** The gRPC binding, loaded. */
export interface GrpcBinding {
  /** The card's GRPC interface, its `url` set once the port is bound (the card is rendered per request). */
  readonly cardInterface: { url: string };
  start(server: A2AServer, host: string, port: number, httpBaseUrl: string): Promise<GrpcServerHandle>;
}

/** Loads the binding, or throws the error that says which packages to install. */
export async function loadGrpcBinding(
  listenFailure: (err: unknown, host: string, port: number, flag: string) => Error,
): Promise<GrpcBinding> {
  let mod: { serveGrpc: typeof serveGrpc };
  try {
    mod = await import('../../server/grpc/index.js');
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND')
      throw new Error(
        `--grpc-port needs ${GRPC_PACKAGES.join(' and ')} installed: npm install ${GRPC_PACKAGES.join(' ')}`,
      );
    throw err;
  }
  const cardInterface = { url: '' };
  return {
    cardInterface,
    async start(server, host, port, httpBaseUrl) {
      const handle = await mod.serveGrpc(server, { host, port, httpBaseUrl }).catch((err: unknown) => {
        throw listenFailure(err, host, port, '--grpc-port');
      });
      cardInterface.url = handle.address;
      return handle;
    },
  };
}

/** Loads the gRPC binding and checks its port is free; on failure the metrics endpoint closes first. */
export async function prepareGrpc(
  host: string,
  port: number,
  metrics: PrometheusEndpoint | undefined,
): Promise<GrpcBinding> {
  try {
    const binding = await loadGrpcBinding(listenFailure);
    if (port !== 0)
      await checkCanListen(host, port).catch((err: unknown) => {
        throw listenFailure(err, host, port, '--grpc-port');
      });
    return binding;
  } catch (err) {
    await metrics?.close();
    throw err;
  }
}
