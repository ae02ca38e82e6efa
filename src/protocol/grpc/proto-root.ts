/**
 * The protobuf definitions of A2A v1.0 (`lf.a2a.v1`) and `google.rpc.Status`, read at run time from the
 * `.proto` files shipped beside this module (ADR 0105): the `.proto` is the one source, and no generated code
 * can drift from it. The google.protobuf imports (Struct, Timestamp, Empty, Any) resolve to the copies
 * protobufjs carries. Loaded once, on first use.
 */
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The proto package of A2A v1.0. */
export const A2A_PROTO_PACKAGE = 'lf.a2a.v1';

/** The folder of the shipped `.proto` files (`a2a.proto`, `google/rpc/status.proto`). */
export const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

let root: protobuf.Root | undefined;

/** The resolved root of every definition the gRPC binding uses. */
export function protoRoot(): protobuf.Root {
  if (root === undefined) {
    const r = new protobuf.Root();
    // alternateCommentMode keeps the trailing `// REQUIRED` of a field as its comment (read by the codec).
    r.loadSync([`${PROTO_DIR}a2a.proto`, `${PROTO_DIR}google/rpc/status.proto`], {
      alternateCommentMode: true,
    });
    r.resolveAll();
    keepStructKeys(r);
    root = r;
  }
  return root;
}

/** A message type by its full name (`lf.a2a.v1.Task`, `google.rpc.Status`). */
export function protoType(fullName: string): protobuf.Type {
  return protoRoot().lookupType(fullName);
}

/**
 * Replaces the generated decoder of `google.protobuf.Struct` with one that collects its entries into an object
 * without a prototype: the generated one assigns `fields[key] = value`, which drops a key named `__proto__`
 * (a JSON object may carry it, and a metadata object must come back as it was sent).
 */
function keepStructKeys(r: protobuf.Root): void {
  const struct = r.lookupType('google.protobuf.Struct');
  const value = r.lookupType('google.protobuf.Value');
  struct.setup(); // generates the codec now, so it cannot later overwrite the decoder set below
  struct.decode = (input: protobuf.Reader | Uint8Array, length?: number): protobuf.Message => {
    const reader = input instanceof protobuf.Reader ? input : protobuf.Reader.create(input);
    const end = length === undefined ? reader.len : reader.pos + length;
    const fields = Object.create(null) as Record<string, unknown>;
    while (reader.pos < end) {
      const tag = reader.uint32();
      if (tag >>> 3 !== 1) {
        reader.skipType(tag & 7);
        continue;
      }
      const entryEnd = reader.uint32() + reader.pos;
      let key = '';
      let entry: unknown;
      while (reader.pos < entryEnd) {
        const t = reader.uint32();
        if (t >>> 3 === 1) key = reader.string();
        else if (t >>> 3 === 2) entry = value.decode(reader, reader.uint32());
        else reader.skipType(t & 7);
      }
      fields[key] = entry ?? value.create();
    }
    return struct.create({ fields });
  };
}
