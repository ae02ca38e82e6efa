/**
 * The card's `securitySchemes` and `securityRequirements`, derived from the authenticator that runs (A2A §7,
 * ADR 0076), like the idempotency extension is derived from the store: what the card says a client must send is
 * what the server checks. With a bare `authenticate` hook nothing is known about the scheme, and the card keeps
 * what the host wrote.
 */
import type { AgentCard } from '../../protocol/agent-card.js';
import type { Authenticator } from './authenticator.js';

/** `card` stating `auth`'s schemes and requirements (the same object when it already does). */
export function secureCard<C extends Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>>(
  card: C,
  auth: Authenticator | undefined,
): C {
  if (!auth) return card;
  const securitySchemes = structuredClone(auth.securitySchemes) as NonNullable<AgentCard['securitySchemes']>;
  const securityRequirements = structuredClone(auth.securityRequirements) as NonNullable<
    AgentCard['securityRequirements']
  >;
  if (
    JSON.stringify(card.securitySchemes) === JSON.stringify(securitySchemes) &&
    JSON.stringify(card.securityRequirements) === JSON.stringify(securityRequirements)
  )
    return card;
  return { ...card, securitySchemes, securityRequirements };
}
