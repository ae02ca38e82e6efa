/**
 * Verifying a fetched card before the client uses it (A2A §8.4.3, ADR 0073). The card is verified as received —
 * the exact bytes the card fetch parsed, read from a copy of that response — since parsing drops and renames
 * fields a signature covers. Trust comes from the caller only; a failure is a `ClientError` with code
 * `CARD_NOT_TRUSTED` and the reason.
 */
import {
  CardSignatureError,
  verifyAgentCard,
  type CardSignatureFailure,
  type CardTrust,
} from '../../card-signing/index.js';
import type { FetchLike } from '../transport/transport.js';
import { ClientError } from './client-error.js';

/** What `fromCardUrl` verifies: the trusted keys, and whether an unsigned card is refused (default true). */
export interface CardTrustOptions extends CardTrust {
  /** `true` (default): a card without a valid signature is refused. `false`: an unsigned card passes, a signed one must verify. */
  readonly required?: boolean;
}

/** A card the client refused to trust, naming why. */
export class CardNotTrustedError extends ClientError {
  readonly reason: CardSignatureFailure;
  constructor(cause: CardSignatureError, cardUrl: string) {
    super(
      'CARD_NOT_TRUSTED',
      `the agent card at ${cardUrl} is not trusted (${cause.reason}): ${cause.message}`,
    );
    this.reason = cause.reason;
    this.cause = cause;
  }
}

/** Keeps a copy of the last successful response body the card fetch reads, to verify what it parsed. */
export function cardCapture(
  fetchImpl: FetchLike | undefined,
  trust: CardTrustOptions | undefined,
): { fetch: FetchLike | undefined; verify: (cardUrl: string) => Promise<void> } {
  if (trust === undefined) return { fetch: fetchImpl, verify: () => Promise.resolve() };
  const inner: FetchLike = fetchImpl ?? ((input, init) => fetch(input, init));
  let last: Response | undefined;
  const capturing: FetchLike = async (input, init) => {
    const res = await inner(input, init);
    void last?.body?.cancel().catch(() => undefined);
    last = res.ok ? res.clone() : undefined;
    return res;
  };
  const verify = async (cardUrl: string): Promise<void> => {
    const res = last;
    last = undefined;
    if (res === undefined)
      throw new ClientError('CARD_NOT_TRUSTED', `the agent card at ${cardUrl} was not read`);
    const raw = JSON.parse(await res.text()) as unknown;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new ClientError('CARD_NOT_TRUSTED', `the agent card at ${cardUrl} is not a JSON object`);
    const signed = Array.isArray((raw as { signatures?: unknown }).signatures);
    if (trust.required === false && !signed) return;
    try {
      await verifyAgentCard(raw, trust);
    } catch (err) {
      if (err instanceof CardSignatureError) throw new CardNotTrustedError(err, cardUrl);
      throw err;
    }
  };
  return { fetch: capturing, verify };
}
