/**
 * A keyed send given no messageId gets one derived from its key (ADR 0043): the same for the same key, a UUID,
 * never the key nor its log hash, and what makes the same `send(text, { key })` made twice a replay.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, messageIdForKey } from '../../../src/client/index.js';
import { planSend } from '../../../src/client/sends/send-plan.js';
import type { SendPolicy } from '../../../src/client/sends/send-plan.js';
import { CONSOLE_LOGGER } from '../../../src/client/sends/client-logger.js';
import { A2AError } from '../../../src/protocol/errors.js';
import { keyHash, keyOf, mintKey } from '../../../src/idempotency/index.js';
import { startOnceAgent } from '../../helpers/once-agent.js';
import type { OnceAgent } from '../../helpers/once-agent.js';

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:';
const validKey = fc
  .array(fc.constantFrom(...KEY_CHARS.split('')), { minLength: 16, maxLength: 255 })
  .map((cs) => cs.join(''));
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('messageIdForKey', () => {
  it('is a version-8 UUID, the same for the same key, and shows neither the key nor its hash', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        const id = messageIdForKey(key);
        expect(id).toMatch(UUID_V8);
        expect(messageIdForKey(key)).toBe(id);
        expect(id).not.toContain(key);
        expect(id.replace(/-/g, '')).not.toContain(keyHash(key));
      }),
    );
  });

  it('differs between keys', () => {
    fc.assert(
      fc.property(validKey, validKey, (a, b) => {
        fc.pre(a !== b);
        expect(messageIdForKey(a)).not.toBe(messageIdForKey(b));
      }),
    );
  });

  it('is stable across releases: a resend from an older client must reach the same task', () => {
    // SHA-256("a2a-once/v1/message-id-from-idempotency-key\0order-1234-payment-0001") begins
    // fb21fd038f8df938abd22b64ada9ea1b: the 13th hex digit becomes the version (8), the 17th gets the variant
    // bits (10xx: a stays a).
    expect(messageIdForKey('order-1234-payment-0001')).toBe('fb21fd03-8f8d-8938-abd2-2b64ada9ea1b');
  });
});

describe('planSend: the messageId of a keyed send', () => {
  const policy: SendPolicy = {
    peerHonoursKeys: true,
    keys: 'auto',
    intents: undefined,
    target: 'agent',
    logger: CONSOLE_LOGGER,
  };

  it("derives it from the caller's key", () => {
    const key = 'caller-key-000000001';
    expect(planSend(policy, 'hello', { key }, undefined).message.messageId).toBe(messageIdForKey(key));
  });

  it('derives it from a key already in the message', () => {
    const key = 'metadata-key-00000001';
    const plan = planSend(
      policy,
      { parts: [{ text: 'x' }], metadata: { 'a2a-rust.com/idempotency-key': key } },
      {},
      undefined,
    );
    expect(plan.message.messageId).toBe(messageIdForKey(key));
  });

  it('derives it from a key the client minted', () => {
    const plan = planSend(policy, 'minted', {}, undefined);
    expect(plan.message.messageId).toBe(messageIdForKey(keyOf(plan.message)!));
  });

  it("keeps the caller's messageId", () => {
    const plan = planSend(
      policy,
      { parts: [{ text: 'x' }], messageId: 'mine' },
      { key: mintKey() },
      undefined,
    );
    expect(plan.message.messageId).toBe('mine');
  });

  it('gives an unkeyed send a fresh random one each time', () => {
    const a = planSend(policy, 'x', { key: false }, undefined).message.messageId;
    const b = planSend(policy, 'x', { key: false }, undefined).message.messageId;
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });
});

describe('client.send(text, { key }) made twice', () => {
  let agent: OnceAgent;
  beforeAll(async () => {
    agent = await startOnceAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  it('is a retry: the same task, the agent ran once (even from a second client)', async () => {
    const key = `replay-by-key-${process.pid}-0001`;
    const before = agent.runs();
    const first = await (await A2AClient.fromCardUrl(agent.url)).send('charge card', { key });
    const again = await (await A2AClient.fromCardUrl(agent.url)).send('charge card', { key });
    expect('task' in first && 'task' in again).toBe(true);
    if ('task' in first && 'task' in again) expect(again.task.id).toBe(first.task.id);
    expect(agent.runs()).toBe(before + 1);
  });

  it('with other text is refused as a reused key, and runs nothing', async () => {
    const key = `replay-by-key-${process.pid}-0002`;
    const client = await A2AClient.fromCardUrl(agent.url);
    await client.send('first', { key });
    const before = agent.runs();
    const err = await client.send('second', { key }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).reason).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(agent.runs()).toBe(before);
  });
});
