/**
 * The client's credentials for its calls (ADR 0079): a fixed credential checked and placed once, or a provider
 * asked before every attempt, and asked again (`refresh: true`, with the refused credential) after a 401. Each
 * call gets its own view, which remembers the credential its last attempt sent.
 */
import { ClientError } from '../transport/client-error.js';
import { checkCredential } from './credential.js';
import type { Credential, CredentialProvider, CredentialsOption } from './credential.js';
import { DEFAULT_API_KEY_HEADER } from './credential-placement.js';
import type { CredentialPlacement } from './credential-placement.js';

/** What the retry loop asks of a call's credentials (structurally `AttemptCredentials` of `retry-loop.ts`). */
export interface CallCredentials {
  /** Whether a refresh can bring another credential (a provider can; a fixed credential cannot). */
  readonly refreshable: boolean;
  /** The headers of the next attempt; `refresh` after a 401. */
  headers(refresh: boolean, signal: AbortSignal): Promise<Readonly<Record<string, string>>>;
}

/** The credentials of one client (or one card fetch). */
export class ClientCredentials {
  private readonly fixed: Readonly<Record<string, string>> | undefined;
  private readonly provider: CredentialProvider | undefined;

  constructor(
    option: CredentialsOption,
    private readonly placement: CredentialPlacement,
  ) {
    if (typeof option === 'function') {
      this.provider = option;
    } else {
      // Checked and placed now, so a bad credential or a card that cannot carry it fails at construction.
      this.fixed = credentialHeaders(checkCredential(option, 'credentials'), placement);
    }
  }

  /** A view for one call. */
  forCall(): CallCredentials {
    const fixed = this.fixed;
    if (fixed !== undefined) return { refreshable: false, headers: () => Promise.resolve(fixed) };
    const provider = this.provider!;
    const placement = this.placement;
    let last: Credential | undefined;
    return {
      refreshable: true,
      async headers(refresh, signal) {
        let given: unknown;
        try {
          given = await provider({ refresh, refused: refresh ? last : undefined, signal });
        } catch (err) {
          if (err instanceof ClientError || signal.aborted) throw err;
          // The provider's own error is kept as the cause, but its text is not repeated: it may quote a secret.
          const name = err instanceof Error ? err.name : typeof err;
          throw new ClientError(
            'CREDENTIAL_UNAVAILABLE',
            `the credential provider failed (${name}), so nothing was sent; see the error's cause`,
            { cause: err },
          );
        }
        const credential = checkCredential(given, 'the credential provider');
        last = credential;
        return credentialHeaders(credential, placement);
      },
    };
  }
}

/** `base` with `credential`'s headers, replacing any header of the same name whatever its case. */
export function withCredentialHeaders(
  base: Readonly<Record<string, string>>,
  credential: Readonly<Record<string, string>>,
): Record<string, string> {
  const names = new Set(Object.keys(credential).map((n) => n.toLowerCase()));
  if (names.size === 0) return { ...base };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (!names.has(name.toLowerCase())) out[name] = value;
  return { ...out, ...credential };
}

/** The card's API-key header, for an `{ apiKey }` that names none. */
function apiKeyHeaderOf(placement: CredentialPlacement): string {
  return placement.kind === 'header' ? placement.header : DEFAULT_API_KEY_HEADER;
}

/** The headers that carry `credential`, placed as `placement` says. */
export function credentialHeaders(
  credential: Credential,
  placement: CredentialPlacement,
): Record<string, string> {
  if ('bearer' in credential) return { Authorization: `Bearer ${credential.bearer}` };
  if ('apiKey' in credential) return { [credential.header ?? apiKeyHeaderOf(placement)]: credential.apiKey };
  switch (placement.kind) {
    case 'bearer':
      return { Authorization: `Bearer ${credential.token}` };
    case 'header':
      return { [placement.header]: credential.token };
    case 'none':
      throw new ClientError(
        'NO_USABLE_SECURITY_SCHEME',
        `the card's security schemes (${placement.schemes.join(', ')}) cannot carry a { token }: none is an API key in a ` +
          'header or a bearer token; give { bearer } or { apiKey, header } to say how to send it',
      );
  }
}
