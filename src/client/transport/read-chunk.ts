/**
 * Reading one chunk of an answer's body, for the bounded reader and the SSE reader alike (ADR 0069). It imports
 * nothing: the import chains of the client's layout stay short (ADR 0033).
 */
/**
 * The next chunk of a body. A read that fails is the caller's abort or attempt timeout when the scope says so,
 * and otherwise `failure(err)`: the answer started, so what did not arrive is ambiguous (docs/semantics.md §7).
 */
export async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  /** The attempt's signal (`AttemptSignal.translate`): named structurally, so this file imports nothing above. */
  scope: { translate(err: unknown): unknown },
  /** The error a failed read becomes (a `TransportError`: its kind is the caller's to say). */
  failure: (err: unknown) => Error,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  try {
    return await reader.read();
  } catch (err) {
    const translated = scope.translate(err);
    throw translated !== err ? translated : failure(err);
  }
}
