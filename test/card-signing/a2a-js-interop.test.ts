/**
 * Interoperability with `@a2a-js/sdk` 1.3.0's real signer and verifier (`generateAgentCardSignature`,
 * `verifyAgentCardSignature`, `canonicalizeAgentCard`), ADR 0072: our `a2a-js` form is byte for byte theirs
 * (a property over generated cards), cards they sign verify with ours and ours with theirs — for a card as
 * servers publish it, and for a card with the empty values on which their form and the spec's differ.
 */
import {
  canonicalizeAgentCard,
  generateAgentCardSignature,
  verifyAgentCardSignature,
  type AgentCard as JsAgentCard,
} from '@a2a-js/sdk';
import fc from 'fast-check';
import type { JWK } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalAgentCard } from '../../src/card-signing/canonical-forms.js';
import { signAgentCard } from '../../src/card-signing/sign-agent-card.js';
import { verifyAgentCard } from '../../src/card-signing/verify-agent-card.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import { publishedCard } from './cards.js';
import { testKey } from './keys.js';

const asJs = (card: unknown) => card as JsAgentCard;

// @a2a-js/sdk logs each signature it could not verify with console.debug; keep the test output readable.
beforeAll(() => {
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
});

async function signWithA2aJs(card: AgentCard, privateJwk: JWK): Promise<Record<string, unknown>> {
  const signer = generateAgentCardSignature(privateJwk, {
    alg: privateJwk.alg!,
    kid: privateJwk.kid!,
    typ: 'JOSE',
  });
  return (await signer(asJs(card))) as unknown as Record<string, unknown>;
}

async function verifyWithA2aJs(card: unknown, publicJwk: JWK): Promise<void> {
  const verifier = verifyAgentCardSignature((kid) =>
    kid === publicJwk.kid ? Promise.resolve(publicJwk) : Promise.reject(new Error(`unknown kid ${kid}`)),
  );
  await verifier(asJs(card));
}

/** A card with values the two forms treat differently: REQUIRED empties, an empty scope list, "" and null in params. */
function cardWithEmpties(): AgentCard {
  const card = publishedCard();
  return {
    ...card,
    skills: [],
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    capabilities: {
      ...card.capabilities,
      extensions: [{ uri: 'urn:example:ext', params: { empty: '', none: null, list: [], keep: 'x' } }],
    },
  };
}

describe('the a2a-js form is @a2a-js/sdk canonicalizeAgentCard, byte for byte', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 6 });
  const maybeEmptyText = fc.oneof(text, fc.constant(''));
  const key = text.filter((k) => k !== '__proto__');
  const json = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      maybeEmptyText,
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  const stringList = fc.array(maybeEmptyText, { maxLength: 3 });
  const requirement = fc.record({
    schemes: fc.dictionary(key, fc.record({ list: stringList }), { maxKeys: 2 }),
  });
  const card = fc.record(
    {
      name: maybeEmptyText,
      description: maybeEmptyText,
      version: maybeEmptyText,
      supportedInterfaces: fc.array(
        fc.record(
          {
            url: maybeEmptyText,
            protocolBinding: maybeEmptyText,
            protocolVersion: maybeEmptyText,
            tenant: maybeEmptyText,
          },
          { requiredKeys: ['url', 'protocolBinding', 'protocolVersion'] },
        ),
        { maxLength: 2 },
      ),
      capabilities: fc.record(
        {
          streaming: fc.boolean(),
          pushNotifications: fc.boolean(),
          extendedAgentCard: fc.boolean(),
          extensions: fc.array(
            fc.record(
              {
                uri: maybeEmptyText,
                description: maybeEmptyText,
                required: fc.boolean(),
                params: fc.dictionary(key, json, { maxKeys: 3 }),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 2 },
          ),
        },
        { requiredKeys: [] },
      ),
      securityRequirements: fc.array(requirement, { maxLength: 2 }),
      defaultInputModes: stringList,
      defaultOutputModes: stringList,
      skills: fc.array(
        fc.record(
          {
            id: maybeEmptyText,
            name: maybeEmptyText,
            description: maybeEmptyText,
            tags: stringList,
            examples: stringList,
          },
          { requiredKeys: ['id', 'name', 'description', 'tags'] },
        ),
        { maxLength: 2 },
      ),
      documentationUrl: maybeEmptyText,
      iconUrl: maybeEmptyText,
      notInTheSchema: json,
    },
    { requiredKeys: ['name', 'description', 'capabilities'] },
  );

  it('for generated cards (empties, unicode, numbers, fields outside the schema)', () => {
    fc.assert(
      fc.property(card, (c) => {
        expect(canonicalAgentCard(c, 'a2a-js')).toBe(canonicalizeAgentCard(asJs(c)));
      }),
      { numRuns: 300 },
    );
  });

  it('differs from the a2a-spec form exactly where §8.4.1 keeps a value cleanEmpty removes (its worked example)', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(canonicalAgentCard(fragment, 'a2a-spec')).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
    expect(canonicalAgentCard(fragment, 'a2a-js')).toBe(canonicalizeAgentCard(asJs(fragment)));
    expect(canonicalAgentCard(fragment, 'a2a-js')).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}',
    );
  });

  it('agrees with the a2a-spec form on a card as servers publish it', () => {
    expect(canonicalAgentCard(publishedCard(), 'a2a-spec')).toBe(
      canonicalizeAgentCard(asJs(publishedCard())),
    );
  });
});

describe('signatures across a2a-once and @a2a-js/sdk', () => {
  it('a published card @a2a-js/sdk signed verifies with ours, over the a2a-spec form (they coincide)', async () => {
    const { privateJwk, publicJwk } = await testKey('js-1');
    const signed = await signWithA2aJs(publishedCard(), privateJwk);
    const verified = await verifyAgentCard(signed, { keys: [publicJwk] });
    expect(verified).toMatchObject({ kid: 'js-1', alg: 'ES256', canonicalForm: 'a2a-spec' });
  });

  it('a published card we signed verifies with @a2a-js/sdk, with one signature per key', async () => {
    const { privateJwk, publicJwk } = await testKey('once-1', 'EdDSA');
    const signed = await signAgentCard(publishedCard(), [privateJwk]);
    expect(signed.signatures).toHaveLength(1);
    await expect(verifyWithA2aJs(signed, publicJwk)).resolves.toBeUndefined();
    // What we serve is what we signed: a schema-less verifier (JCS of the card minus signatures) agrees too.
    const { signatures: _s, ...unsigned } = signed;
    expect(canonicalAgentCard(unsigned)).toBe(canonicalizeAgentCard(asJs(unsigned)));
  });

  it('a card with empty values we signed verifies with @a2a-js/sdk through its a2a-js signature', async () => {
    const { privateJwk, publicJwk } = await testKey('once-2');
    const signed = await signAgentCard(cardWithEmpties(), [privateJwk]);
    expect(signed.signatures).toHaveLength(2);
    await expect(verifyWithA2aJs(signed, publicJwk)).resolves.toBeUndefined();
    await expect(verifyAgentCard(signed, { keys: [publicJwk] })).resolves.toMatchObject({
      canonicalForm: 'a2a-spec',
    });
  });

  it('our verifier holds our signatures to the a2a-spec form: an empty value added to such a card is refused', async () => {
    const { privateJwk, publicJwk } = await testKey('once-4');
    const signed = await signAgentCard(cardWithEmpties(), [privateJwk]);
    // Invisible to the a2a-js form, so its compatibility signature alone would still match.
    const changed = { ...signed, iconUrl: '', extra: 'injected' };
    await expect(verifyAgentCard(changed, { keys: [publicJwk] })).rejects.toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
  });

  it('without the compatible signature, @a2a-js/sdk refuses that card (their form leaves the empties out)', async () => {
    const { privateJwk, publicJwk } = await testKey('once-3');
    const signed = await signAgentCard(cardWithEmpties(), [privateJwk], { a2aJsCompatible: false });
    expect(signed.signatures).toHaveLength(1);
    await expect(verifyWithA2aJs(signed, publicJwk)).rejects.toThrow(/No valid signatures/);
  });

  it('a card with empty values @a2a-js/sdk signed verifies with ours over the a2a-js form, unless that form is refused', async () => {
    const { privateJwk, publicJwk } = await testKey('js-2', 'RS256');
    const signed = await signWithA2aJs(cardWithEmpties(), privateJwk);
    await expect(verifyAgentCard(signed, { keys: [publicJwk] })).resolves.toMatchObject({
      canonicalForm: 'a2a-js',
    });
    await expect(
      verifyAgentCard(signed, { keys: [publicJwk], acceptA2aJsForm: false }),
    ).rejects.toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
  });
});
