/**
 * Why a value could not be written as, or read from, protobuf: the field path and the problem. The gRPC
 * server answers it as INVALID_ARGUMENT (a request it cannot read) and a client as an invalid agent response.
 */
export class ProtoCodecError extends Error {
  /** The dotted field path, e.g. `message.parts[0].raw`. */
  readonly path: string;

  constructor(path: string, problem: string) {
    super(path === '' ? problem : `${path}: ${problem}`);
    this.name = 'ProtoCodecError';
    this.path = path;
  }
}
