/**
 * A server's options with both cards stating the configured authenticator's schemes (ADR 0076), so the handler
 * is built with the card it serves, and whatever reads or signs that card sees the security it declares.
 */
import type { A2AServerOptions } from '../options.js';
import { isAuthenticator } from './authenticator.js';
import { secureCard } from './card-security.js';

/** `options` with `card` and `extendedCard` declaring `authenticate`'s schemes (unchanged for a bare hook). */
export function secureServerCards<O extends A2AServerOptions>(options: O, authenticate: unknown): O {
  if (!isAuthenticator(authenticate)) return options;
  const ext = options.extendedCard;
  return {
    ...options,
    card: secureCard(options.card, authenticate),
    ...(ext === undefined
      ? {}
      : {
          extendedCard:
            typeof ext === 'function'
              ? async (ctx: Parameters<typeof ext>[0]) => secureCard(await ext(ctx), authenticate)
              : secureCard(ext, authenticate),
        }),
  };
}
