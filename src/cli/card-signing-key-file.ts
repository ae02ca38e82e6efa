/**
 * `serve --sign-card KEY_FILE`: the card signing keys in a file (ADR 0074) — one private JWK, or a JWKS
 * (`{"keys":[...]}`) of private JWKs for rotation, each with a `kid`. A public key, a missing `kid` or an
 * unsupported `alg` is refused before anything opens, with a message naming the file and the fault; the key
 * material is never echoed.
 */
import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import { CardSigningKeyError, checkSigningKeys } from '../card-signing/index.js';
import { UsageError } from './args.js';

/** The private JWKs in `file`, checked. Throws `UsageError`. */
export function readCardSigningKeys(file: string): JWK[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--sign-card ${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--sign-card ${file}: not JSON (expected a private JWK or a JWKS)`);
  }
  const keys = isRecord(parsed) && Array.isArray(parsed.keys) ? (parsed.keys as unknown[]) : [parsed];
  if (!keys.every(isRecord))
    throw new UsageError(`--sign-card ${file}: expected a private JWK or a JWKS of them`);
  try {
    checkSigningKeys(keys);
  } catch (err) {
    if (err instanceof CardSigningKeyError) throw new UsageError(`--sign-card ${file}: ${err.message}`);
    throw err;
  }
  return keys;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
