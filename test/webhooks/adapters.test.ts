/**
 * The receiver in four frameworks, over real sockets where the framework has them: node:http and Express through
 * `nodeWebhookListener`, Hono through `receiver.fetch`, Fastify through `receiver.receive` with the body kept as a
 * string. The signature covers the raw bytes, so each set-up must hand the body over unparsed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWebhookReceiver,
  nodeWebhookListener,
  type WebhookReceiver,
} from '../../src/webhooks/index.js';
import { delivery, deliveryRequest, newSecret } from './sender.js';

const secret = newSecret();
let servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  servers = [];
});

function newReceiver(maxBodyBytes?: number): { receiver: WebhookReceiver<undefined>; applied: number[] } {
  const applied: number[] = [];
  const receiver = createWebhookReceiver({
    secret,
    getTask: () => Promise.reject(new Error('unused')),
    apply: (_event, info) => void applied.push(info.seq),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
  });
  return { receiver, applied };
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

async function post(url: string, seq: number, body?: string) {
  const res = await fetch(deliveryRequest(url, delivery('T', seq, { secret, ...(body ? { body } : {}) })));
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('node:http', () => {
  it('applies, deduplicates and refuses, with JSON verdicts', async () => {
    const { receiver, applied } = newReceiver();
    const url = await listen(createServer(nodeWebhookListener(receiver)));
    expect(await post(url, 1)).toEqual({ status: 200, json: { outcome: 'applied', taskId: 'T', seq: 1 } });
    expect((await post(url, 1)).json).toMatchObject({ outcome: 'duplicate' });
    const bad = await fetch(url, { method: 'POST', headers: delivery('T', 2).headers, body: '{}' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { reason: 'SIGNATURE_MISSING' } });
    expect((await fetch(url)).status).toBe(405);
    expect(applied).toEqual([1]);
  });

  it('refuses an oversized body with 413 without reading it all', async () => {
    const { receiver, applied } = newReceiver(64);
    const url = await listen(createServer(nodeWebhookListener(receiver)));
    const res = await post(url, 1);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: { reason: 'BODY_TOO_LARGE' } });
    expect(applied).toEqual([]);
  });
});

describe('Express', () => {
  it('works with no body parser, with express.raw and with express.text', async () => {
    const { receiver, applied } = newReceiver();
    const app = express();
    app.post('/hooks', nodeWebhookListener(receiver));
    app.post('/raw/hooks', express.raw({ type: '*/*' }), nodeWebhookListener(receiver));
    app.post('/text/hooks', express.text({ type: '*/*' }), nodeWebhookListener(receiver));
    const url = await listen(createServer(app));
    expect((await post(url, 1)).status).toBe(200);
    expect((await post(url.replace('/hooks', '/raw/hooks'), 2)).status).toBe(200);
    expect((await post(url.replace('/hooks', '/text/hooks'), 3)).status).toBe(200);
    expect(applied).toEqual([1, 2, 3]);
  });

  it('says so when express.json() parsed the body first (the signature needs the raw bytes)', async () => {
    const { receiver, applied } = newReceiver();
    const app = express();
    app.post('/hooks', express.json(), nodeWebhookListener(receiver));
    const url = await listen(createServer(app));
    const res = await post(url, 1);
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ error: { reason: 'RAW_BODY_REQUIRED' } });
    expect(applied).toEqual([]);
  });
});

describe('Hono (any Fetch runtime)', () => {
  it('app.post(path, (c) => receiver.fetch(c.req.raw))', async () => {
    const { receiver, applied } = newReceiver();
    const app = new Hono();
    app.post('/hooks', (c) => receiver.fetch(c.req.raw));
    const res = await app.fetch(deliveryRequest('http://hooks.test/hooks', delivery('T', 1, { secret })));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ outcome: 'applied', taskId: 'T', seq: 1 });
    const tampered = delivery('T', 2, { secret });
    const refused = await app.fetch(
      deliveryRequest('http://hooks.test/hooks', { ...tampered, body: tampered.body + ' ' }),
    );
    expect(refused.status).toBe(401);
    expect(applied).toEqual([1]);
  });
});

describe('receiver.fetch', () => {
  it('answers 405 to anything but POST and 413 past the body limit, reading no further', async () => {
    const { receiver, applied } = newReceiver(64);
    const get = await receiver.fetch(new Request('http://hooks.test/hooks'));
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ error: { reason: 'METHOD_NOT_ALLOWED' } });
    const big = await receiver.fetch(
      deliveryRequest('http://hooks.test/hooks', delivery('T', 1, { secret })),
    );
    expect(big.status).toBe(413);
    expect(applied).toEqual([]);
  });
});

describe('Fastify', () => {
  it('with the JSON body kept as a string', async () => {
    const { receiver, applied } = newReceiver();
    const app = Fastify();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
      done(null, body),
    );
    app.post('/hooks', async (req, reply) => {
      const verdict = await receiver.receive({ headers: req.headers, body: req.body as string });
      return reply.code(verdict.status).send(verdict.body);
    });
    const d = delivery('T', 1, { secret });
    const res = await app.inject({ method: 'POST', url: '/hooks', headers: d.headers, payload: d.body });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ outcome: 'applied', taskId: 'T', seq: 1 });
    const again = await app.inject({ method: 'POST', url: '/hooks', headers: d.headers, payload: d.body });
    expect(again.json()).toMatchObject({ outcome: 'duplicate' });
    expect(applied).toEqual([1]);
    await app.close();
  });
});
