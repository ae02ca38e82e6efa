/**
 * The ledger demo agent: each task posts its text, once, to a downstream ledger service over HTTP, and completes
 * with the ledger's receipt. It shows the whole of ADR 0038 from outside: the post is a durable step, and the
 * step's side-effect key (`<taskId>:ledger-post`) travels as the ledger's `Idempotency-Key` header, so a resumed
 * turn that posts again (its worker died after the post and before the step was recorded) gets the first post's
 * receipt from a deduplicating ledger instead of making a second entry. The chaos tests (ADR 0041) run it.
 *
 * The ledger: `POST <base>/entries`, JSON body `{"text": ...}`, header `Idempotency-Key`; it answers 2xx with
 * JSON `{"entry": "<id>"}`. Its base URL comes from the environment variable `A2A_ONCE_LEDGER_URL` when the
 * server starts (only this demo needs one, as with the delegating agent's child URL); without it the agent
 * cannot be built and `serve` says why.
 *
 * With `A2A_ONCE_LEDGER_SEMANTICS=at-most-once` the post is an at-most-once step (ADR 0123): a post cut short by a
 * crash is not made again; the resumed turn asks the ledger (`GET <base>/entries/<key>`) whether it arrived, and
 * posts only if it did not, as a step of its own. The chaos tests run both.
 */
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import { StepInterruptedError, type StepSemantics } from '../../server/step-options.js';
import type { AgentCardInit } from '../../server/card.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';

/** The environment variable naming the ledger service's base URL. */
export const LEDGER_URL_ENV = 'A2A_ONCE_LEDGER_URL';

/** The environment variable choosing the post step's semantics: `at-least-once` (default) or `at-most-once`. */
export const LEDGER_SEMANTICS_ENV = 'A2A_ONCE_LEDGER_SEMANTICS';

/** The step that, after an at-most-once post was interrupted, looks the entry up and posts only if missing. */
export const LEDGER_RECONCILE_STEP = 'ledger-reconcile';

/** The durable step that posts the entry. */
export const LEDGER_POST_STEP = 'ledger-post';

/** What the ledger answers, recorded as the step's result. */
export interface LedgerReceipt {
  readonly entry: string;
}

/** The ledger agent's card. */
export const ledgerCard: AgentCardInit = {
  name: 'a2a-once ledger',
  description: 'Posts each message to a ledger service once, keyed, and answers with the receipt.',
  version: '1.0.0',
  capabilities: { streaming: true },
  skills: [
    {
      id: 'ledger-post',
      name: 'Ledger post',
      description: 'Records the text in a downstream ledger exactly once and returns the entry id.',
      tags: ['ledger', 'durable-step', 'demo'],
      examples: ['pay 10 EUR to Bob'],
    },
  ],
};

/** Options of the ledger agent: `ledgerUrl` defaults to the environment variable. */
export interface LedgerAgentOptions extends DemoAgentOptions {
  readonly ledgerUrl?: string;
  /** The post step's semantics; defaults to the environment variable, then `at-least-once`. */
  readonly semantics?: StepSemantics;
}

/** The artifact text of a receipt. */
export function receiptText(receipt: LedgerReceipt): string {
  return `ledger entry ${receipt.entry}`;
}

/**
 * Creates the ledger agent.
 * @throws Error when no ledger URL is given or it is not an http(s) URL
 */
export function createLedgerAgent(options: LedgerAgentOptions = {}): DemoAgent {
  const entries = entriesUrl(options.ledgerUrl ?? process.env[LEDGER_URL_ENV]);
  const semantics = semanticsOf(options.semantics ?? process.env[LEDGER_SEMANTICS_ENV]);
  const executor: AgentExecutor = {
    resumable: true,
    async execute(ctx: AgentContext): Promise<void> {
      // Once per task to completion; a resumed turn re-posting under the same key gets the same receipt.
      let receipt: LedgerReceipt;
      try {
        receipt = await ctx
          .step(LEDGER_POST_STEP, (key) => postEntry(entries, key, ctx), { semantics })
          .catch((err: unknown) => {
            if (!(err instanceof StepInterruptedError)) throw err;
            // The post may or may not have reached the ledger: ask it, by the post's key, before posting.
            const key = err.sideEffectKey;
            return ctx.step(
              LEDGER_RECONCILE_STEP,
              async () => (await findEntry(entries, key)) ?? postEntry(entries, key, ctx),
            );
          });
      } catch (err) {
        // The ledger's answer is the caller's business; anything else (unreachable, a bug) stays in the log.
        if (err instanceof LedgerRefusal) return ctx.fail(err.message);
        throw err;
      }
      await ctx.artifact({ name: 'receipt', parts: [{ text: receiptText(receipt) }] });
      await ctx.complete();
    },
  };
  return { executor, card: ledgerCard };
}

function entriesUrl(base: string | undefined): URL {
  if (base === undefined || base === '') {
    throw new Error(`the ledger agent needs the ledger's base URL in ${LEDGER_URL_ENV}`);
  }
  let url: URL;
  try {
    url = new URL(base.endsWith('/') ? base : `${base}/`);
  } catch {
    throw new Error(`${LEDGER_URL_ENV} is not a URL: ${JSON.stringify(base)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${LEDGER_URL_ENV} must be an http or https URL, not ${url.protocol}`);
  }
  return new URL('entries', url);
}

function semanticsOf(value: string | undefined): StepSemantics {
  if (value === undefined || value === '' || value === 'at-least-once') return 'at-least-once';
  if (value === 'at-most-once') return value;
  throw new Error(
    `${LEDGER_SEMANTICS_ENV} must be at-least-once or at-most-once, not ${JSON.stringify(value)}`,
  );
}

/** The entry the ledger holds under `key`, if any. @throws LedgerRefusal for an answer that is neither */
async function findEntry(entries: URL, key: string): Promise<LedgerReceipt | undefined> {
  const res = await fetch(new URL(`entries/${encodeURIComponent(key)}`, entries));
  if (res.status === 404) return undefined;
  const body = (await res.json().catch(() => undefined)) as { entry?: unknown } | undefined;
  if (!res.ok || typeof body?.entry !== 'string') {
    throw new LedgerRefusal(`the ledger could not say whether it holds the entry: HTTP ${res.status}`);
  }
  return { entry: body.entry };
}

/** The ledger answered, but not with an entry: the task fails saying so (ADR 0081: a reason through `ctx.fail`). */
class LedgerRefusal extends Error {
  override name = 'LedgerRefusal';
}

/** Posts one entry. @throws LedgerRefusal for a refusal or an answer without an entry id */
async function postEntry(
  entries: URL,
  key: string,
  ctx: Pick<AgentContext, 'userText' | 'signal'>,
): Promise<LedgerReceipt> {
  const res = await fetch(entries, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ text: ctx.userText }),
    signal: ctx.signal,
  });
  const body = (await res.json().catch(() => undefined)) as { entry?: unknown } | undefined;
  if (!res.ok || typeof body?.entry !== 'string') {
    throw new LedgerRefusal(
      `the ledger refused the entry: HTTP ${res.status} ${JSON.stringify(body ?? null)}`,
    );
  }
  return { entry: body.entry };
}
