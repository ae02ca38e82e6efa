/** Reading a Fetch body as text without holding more than a limit in memory. */

/** The body as UTF-8 text, or undefined once it passes `maxBytes` (the rest is not read). */
export async function readLimited(request: Request, maxBytes: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return undefined;
  if (request.body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
