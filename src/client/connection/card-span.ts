/**
 * The CLIENT span of a card fetch (ADR 0092): the card request is the first call a client makes to an agent, so
 * a trace that starts with it shows the time it took and, when it failed, why. Only with live telemetry.
 */
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import { live, type Telemetry } from '../../telemetry/telemetry.js';
import type { AgentCard } from '../../protocol/agent-card.js';

/**
 * Runs `fetchCard` (given the request headers, the trace context included) in a span of its own; without live
 * telemetry, with the caller's headers as they are.
 */
export async function tracedCardFetch(
  telemetry: Telemetry | undefined,
  cardUrl: string,
  headers: Readonly<Record<string, string>>,
  fetchCard: (headers: Readonly<Record<string, string>>) => Promise<AgentCard>,
): Promise<AgentCard> {
  const t = live(telemetry);
  if (t === undefined) return fetchCard(headers);
  const span = t.startSpan(SPAN.card, { kind: 'client', attributes: { [ATTR.url]: cardUrl } });
  try {
    const card = await span.run(() => {
      const traced = { ...headers };
      t.inject(traced);
      return fetchCard(traced);
    });
    span.setAttribute(ATTR.agentName, card.name);
    return card;
  } catch (err) {
    span.fail(errorTypeOf(err));
    throw err;
  } finally {
    span.end();
  }
}

/** `error.type`: the client error's code (`NO_AGENT_CARD`, …), else the error's name. */
function errorTypeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.name : 'Error';
}
