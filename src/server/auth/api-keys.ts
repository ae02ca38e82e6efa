/**
 * `apiKeys`: API keys from a list, in a header (default `X-API-Key`), each mapped to a principal and its tenants,
 * kept as SHA-256 digests and compared in constant time (ADR 0075). The card gets an `apiKeySecurityScheme` with
 * `location: header` and the header's name (ADR 0076).
 */
import { authenticator, checkSchemeName, requirementOf, type Authenticator } from './authenticator.js';
import { grantTable, type TokenGrant } from './token-grants.js';

/** Options of `apiKeys`. */
export interface ApiKeysOptions {
  /** The keys and what each grants. */
  readonly keys: readonly TokenGrant[];
  /** The header that carries the key (default `X-API-Key`). */
  readonly header?: string;
  /** The scheme's name in the card's `securitySchemes` (default `apiKey`). */
  readonly scheme?: string;
  /** The scheme's description in the card. */
  readonly description?: string;
}

/**
 * API keys from a list, read from one header. A request without the header is not its to judge; one with it
 * and a key not in the list is refused (401).
 * @example
 * const auth = apiKeys({ header: 'X-API-Key', keys: [{ token: process.env.AGENT_KEY!, principal: 'billing' }] });
 */
export function apiKeys(options: ApiKeysOptions): Authenticator {
  const scheme = checkSchemeName(options.scheme ?? 'apiKey', 'apiKeys');
  const header = options.header ?? 'X-API-Key';
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header) || header.toLowerCase() === 'authorization')
    throw new RangeError('apiKeys: header must be an HTTP header name other than Authorization');
  const table = grantTable(options.keys, 'apiKeys.keys');
  return authenticator({
    securitySchemes: {
      [scheme]: {
        apiKeySecurityScheme: {
          location: 'header',
          name: header,
          description: options.description ?? 'An API key issued by the operator of this agent',
        },
      },
    },
    securityRequirements: [requirementOf(scheme)],
    // No HTTP authentication scheme names API keys; the challenge says which header to send.
    challenges: [`ApiKey realm="a2a", header="${header}"`],
    recognise(request) {
      const key = request.headers.get(header);
      if (key === null) return { kind: 'absent' };
      const identity = key.trim() === '' ? undefined : table.find(key.trim());
      return identity
        ? { kind: 'accepted', identity }
        : { kind: 'refused', detail: `the key in ${header} is not valid` };
    },
  });
}
