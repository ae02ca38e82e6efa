/**
 * A plain grpc-js client of `lf.a2a.v1.A2AService` for the server tests, with our codec: unary calls answer
 * the decoded ProtoJSON and the response metadata; streams collect their events; failures keep the status
 * code, message and decoded `grpc-status-details-bin`.
 */
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import type { A2AMethod } from '../../../src/protocol/constants.js';
import {
  GRPC_METHODS,
  decodeGrpcStatus,
  decodeProto,
  encodeProto,
  type GrpcStatusJson,
} from '../../../src/protocol/grpc/index.js';

/** A failed call: what the status said. */
export class GrpcFailure extends Error {
  constructor(
    readonly code: number,
    override readonly message: string,
    readonly status: GrpcStatusJson | undefined,
    readonly trailers: Metadata,
    readonly events: unknown[] = [],
  ) {
    super(message);
  }
}

/** Metadata from a plain record (values comma-joined already). */
export function metadataOf(entries: Record<string, string> = {}): Metadata {
  const md = new Metadata();
  for (const [k, v] of Object.entries(entries)) md.set(k, v);
  return md;
}

/** The default metadata of a v1.0 call. */
export const V1: Record<string, string> = { 'a2a-version': '1.0' };

export function failureOf(err: ServiceError): GrpcFailure {
  const bin = err.metadata?.get('grpc-status-details-bin')[0];
  return new GrpcFailure(
    err.code,
    err.details,
    bin instanceof Buffer ? decodeGrpcStatus(bin) : undefined,
    err.metadata ?? new Metadata(),
  );
}

/** The client. */
export class GrpcTestClient {
  readonly client: Client;

  constructor(address: string, options: Record<string, number> = {}) {
    this.client = new Client(address, credentials.createInsecure(), options);
  }

  /** A unary call; rejects with a GrpcFailure. */
  unary(
    method: A2AMethod,
    request: unknown,
    md: Record<string, string> = V1,
    options: { deadline?: number } = {},
  ): Promise<{ value: unknown; metadata: Metadata }> {
    const shape = GRPC_METHODS[method];
    let metadata = new Metadata();
    return new Promise((resolve, reject) => {
      const call = this.client.makeUnaryRequest(
        shape.path,
        (v: unknown) => Buffer.from(encodeProto(shape.requestType, v)),
        (b: Buffer) => decodeProto(shape.responseType, b),
        request,
        metadataOf(md),
        options.deadline !== undefined ? { deadline: Date.now() + options.deadline } : {},
        (err: ServiceError | null, value?: unknown) =>
          err ? reject(failureOf(err)) : resolve({ value, metadata }),
      );
      call.on('metadata', (m: Metadata) => (metadata = m));
    });
  }

  /** A unary call whose request bytes are given as they are. */
  raw(method: A2AMethod, bytes: Buffer, md: Record<string, string> = V1): Promise<unknown> {
    const shape = GRPC_METHODS[method];
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        shape.path,
        (b: Buffer) => b,
        (b: Buffer) => decodeProto(shape.responseType, b),
        bytes,
        metadataOf(md),
        {},
        (err: ServiceError | null, value?: unknown) => (err ? reject(failureOf(err)) : resolve(value)),
      );
    });
  }

  /** Opens a stream. */
  open(
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    request: unknown,
    md: Record<string, string> = V1,
  ) {
    const shape = GRPC_METHODS[method];
    return this.client.makeServerStreamRequest(
      shape.path,
      (v: unknown) => Buffer.from(encodeProto(shape.requestType, v)),
      (b: Buffer) => decodeProto(shape.responseType, b),
      request,
      metadataOf(md),
    );
  }

  /** A whole stream: its events, or a GrpcFailure (with the events before it). */
  stream(
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    request: unknown,
    md: Record<string, string> = V1,
  ): Promise<unknown[]> {
    const call = this.open(method, request, md);
    const events: unknown[] = [];
    return new Promise((resolve, reject) => {
      call.on('data', (e: unknown) => events.push(e));
      call.on('error', (err: ServiceError) => {
        const failure = failureOf(err);
        failure.events.push(...events);
        reject(failure);
      });
      call.on('end', () => resolve(events));
    });
  }

  close(): void {
    this.client.close();
  }
}
