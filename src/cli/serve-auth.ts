/**
 * Who may call `a2a-once serve` (docs/guides/security.md, ADR 0078): bearer tokens from `--auth-token` and
 * `--auth-tokens-file`, JWTs from `--jwks` with `--issuer` and `--audience`, and the rule that makes it secure by
 * default: no authenticator on a host other than loopback unless the operator says `--no-auth`.
 */
import { readFileSync } from 'node:fs';
import type { Authenticator } from '../server/auth/authenticator.js';
import { anyOf } from '../server/auth/any-of.js';
import { bearerTokens } from '../server/auth/bearer-tokens.js';
import { jwtBearer } from '../server/auth/jwt-bearer.js';
import type { TokenGrant } from '../server/auth/token-grants.js';
import { UsageError } from './args.js';

/** The `serve` flags this module reads. */
export interface ServeAuthFlags {
  authToken?: string[];
  authTokensFile?: string;
  jwks?: string;
  issuer?: string;
  audience?: string;
  principalClaim?: string;
  tenantsClaim?: string;
  /** commander's `--no-auth`: false when given. */
  auth?: boolean;
}

/** What `serve` authenticates with: an authenticator, or none (and whether the operator asked for none). */
export interface ServeAuth {
  readonly authenticator: Authenticator | undefined;
  /** Words for the start-up line on stderr (never a token). */
  readonly summary: string;
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Whether `host` is a loopback interface (nothing off this machine can connect). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Parses a tokens file: one `TOKEN PRINCIPAL [TENANT,...]` per line, `*` for every tenant, no tenants meaning
 * only requests that name no tenant; `#` comments and blank lines are skipped. A bad line is refused with its
 * number, never with its text (it holds a token).
 */
export function parseTokensFile(text: string, file: string): TokenGrant[] {
  const grants: TokenGrant[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `--auth-tokens-file ${file} line ${i + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length < 2 || fields.length > 3)
      throw new UsageError(
        `${where}: expected TOKEN PRINCIPAL [TENANT,...] (the line is not shown: it holds a token)`,
      );
    const [token, principal, tenantList] = fields as [string, string, string | undefined];
    if (!/^[\x21-\x7e]+$/.test(token)) throw new UsageError(`${where}: the token must be printable ASCII`);
    let tenants: '*' | string[] | undefined;
    if (tenantList !== undefined) {
      const names = tenantList.split(',');
      if (names.some((n) => n === ''))
        throw new UsageError(`${where}: an empty tenant name in the tenant list`);
      tenants = names.includes('*') ? '*' : names;
    }
    grants.push({ token, principal, ...(tenants !== undefined ? { tenants } : {}) });
  });
  if (grants.length === 0) throw new UsageError(`--auth-tokens-file ${file}: no token in the file`);
  return grants;
}

function readTokensFile(file: string): TokenGrant[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'unreadable';
    throw new UsageError(`--auth-tokens-file ${file}: cannot read it (${code})`);
  }
  return parseTokensFile(text, file);
}

/** The authenticator `serve`'s flags describe; throws UsageError for flags that do not fit together. */
export function serveAuth(o: ServeAuthFlags, host: string): ServeAuth {
  const grants: TokenGrant[] = (o.authToken ?? []).map((token) => ({ token }));
  if (o.authTokensFile !== undefined) grants.push(...readTokensFile(o.authTokensFile));
  const parts: Authenticator[] = [];
  const words: string[] = [];
  const jwtFlags = [o.jwks, o.issuer, o.audience];
  if (jwtFlags.some((f) => f !== undefined)) {
    if (jwtFlags.some((f) => f === undefined))
      throw new UsageError('--jwks, --issuer and --audience go together: give all three');
    try {
      parts.push(
        jwtBearer({
          jwksUrl: o.jwks!,
          issuer: o.issuer!,
          audience: o.audience!,
          ...(o.principalClaim !== undefined ? { principalClaim: o.principalClaim } : {}),
          ...(o.tenantsClaim !== undefined ? { tenantsClaim: o.tenantsClaim } : {}),
        }),
      );
    } catch (err) {
      throw new UsageError(`--jwks: ${(err as Error).message}`);
    }
    words.push(`JWT bearer tokens from ${o.issuer!}`);
  } else if (o.principalClaim !== undefined || o.tenantsClaim !== undefined) {
    throw new UsageError('--principal-claim and --tenants-claim need --jwks');
  }
  if (grants.length > 0) {
    try {
      // After the JWT check: it judges only JWT-shaped tokens, and the list every other bearer token.
      parts.push(bearerTokens({ tokens: grants }));
    } catch (err) {
      throw new UsageError(
        `--auth-token / --auth-tokens-file: ${(err as Error).message.replace(/^bearerTokens\.tokens/, 'token ')}`,
      );
    }
    words.push(`${grants.length} bearer token(s)`);
  }
  const authenticator = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : anyOf(...parts);
  if (o.auth === false) {
    if (authenticator)
      throw new UsageError('--no-auth contradicts --auth-token, --auth-tokens-file and --jwks');
    return {
      authenticator: undefined,
      summary: 'none (--no-auth): anyone who can reach this port may act as any caller',
    };
  }
  if (!authenticator && !isLoopbackHost(host))
    throw new UsageError(
      `refusing to listen on ${host} without authentication: give --auth-token, --auth-tokens-file or --jwks, ` +
        'or --no-auth to serve anyone who can reach it',
    );
  return {
    authenticator,
    summary: authenticator ? words.join(' and ') : 'none (loopback only)',
  };
}
