/**
 * What names one recorded send (ADR 0067): the agent it went to, the tenant it is bound to and its idempotency
 * key. A key is scoped on the server to its tenant (docs/semantics.md §1), and two agents never share keys, so the
 * same key sent to two agents, or to two tenants of one agent, is two sends: the outbox holds, settles and
 * recovers each on its own.
 */
/** The identity of an intent. `tenant` absent and `''` both mean no tenant. */
export interface IntentIdentity {
  /** Which agent (the `target` the intent was recorded with). */
  readonly target: string;
  /** The tenant the send is bound to (`request.tenant` of the intent), if any. */
  readonly tenant?: string | undefined;
  /** The idempotency key. */
  readonly key: string;
}

/** The part of a `SendIntent` its identity is made of (structural, so this file imports no other). */
export interface RecordedSend {
  readonly target: string;
  readonly key: string;
  readonly request: { readonly tenant?: string | undefined };
}

/** The tenant an identity names, `''` for none (how both stores hold it). */
export function tenantOf(identity: IntentIdentity): string {
  return identity.tenant ?? '';
}

/**
 * The identity of a recorded intent: its target, the tenant inside its request, its key. A store implementation
 * computes it in `record` and matches `settle`'s argument against it.
 *
 * @example intentIdentityOf(intent) // { target: 'https://agent.example/.well-known/agent-card.json', tenant: '', key: '…' }
 */
export function intentIdentityOf(intent: RecordedSend): IntentIdentity & { readonly tenant: string } {
  const tenant = intent.request.tenant;
  return { target: intent.target, tenant: typeof tenant === 'string' ? tenant : '', key: intent.key };
}

/** One string per identity, for maps (no separator ambiguity: a JSON array). */
export function identityText(identity: IntentIdentity): string {
  return JSON.stringify([identity.target, tenantOf(identity), identity.key]);
}
