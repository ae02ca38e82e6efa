/**
 * A configured list of tokens (bearer tokens or API keys) and what each grants: its principal and its tenants.
 * Kept as SHA-256 digests from the moment it is read (ADR 0075).
 */
import type { Identity } from './authenticator.js';
import { tenantGrantOf } from './tenant-grant.js';
import { DigestTable, digestFromHex, digestPrincipalName, tokenDigest } from './token-digest.js';

/** One token and what it grants. Give the token itself, or only its SHA-256 (`tokenSha256`, hex). */
export interface TokenGrant {
  /** The token as the client sends it. */
  readonly token?: string;
  /** The token's SHA-256 as 64 hex digits, for a configuration that holds no token in clear. */
  readonly tokenSha256?: string;
  /** The principal; default `token:` and the first 8 hex digits of the token's SHA-256 (not secret). */
  readonly principal?: string;
  /** The tenants it may use: `'*'` for all, a list of names; default: only requests that name no tenant. */
  readonly tenants?: '*' | readonly string[];
}

/** The digest table of a list of grants; every entry is checked, and a bad one is refused with its index. */
export function grantTable(grants: readonly TokenGrant[], what: string): DigestTable<Identity> {
  if (!Array.isArray(grants) || grants.length === 0) throw new RangeError(`${what}: give at least one token`);
  const table = new DigestTable<Identity>();
  grants.forEach((g: TokenGrant, i) => {
    const where = `${what}[${i}]`;
    const digest = digestOf(g, where);
    const principal = g.principal ?? digestPrincipalName(digest);
    if (typeof principal !== 'string' || principal === '')
      throw new RangeError(`${where}: principal must be a non-empty string`);
    table.add(digest, Object.freeze({ principal, tenants: tenantGrantOf(g.tenants, where) }), where);
  });
  return table;
}

function digestOf(g: TokenGrant, where: string): Uint8Array {
  if (g.token !== undefined && g.tokenSha256 !== undefined)
    throw new RangeError(`${where}: give token or tokenSha256, not both`);
  if (g.tokenSha256 !== undefined) return digestFromHex(g.tokenSha256, where);
  if (typeof g.token !== 'string' || !/^[\x21-\x7e]+$/.test(g.token))
    // The message never repeats the token: it may be a real secret with a typo in it.
    throw new RangeError(`${where}: a token must be printable ASCII without spaces`);
  return tokenDigest(g.token);
}
