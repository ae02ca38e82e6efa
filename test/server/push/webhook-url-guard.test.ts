/**
 * The SSRF guard (docs/semantics.md §5, ADR 0045): every address class, as IPv4 and IPv6 literals and as names
 * resolving to them through a stub resolver; IPv4 hidden in IPv6 judged by the IPv4 address it carries. A refused
 * private target names the way out for local development, on a real server too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { classifyAddress, type AddressClass } from '../../../src/server/push/address-class.js';
import {
  WebhookTargetError,
  checkWebhookAtCreation,
  checkWebhookUrlForm,
  resolveWebhookTarget,
  webhookOrigin,
  type WebhookResolver,
} from '../../../src/server/push/webhook-url-guard.js';
import { closeNode } from '../../helpers/close-node.js';

const TABLE: readonly [string, AddressClass][] = [
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.1', 'public'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.18.0.1', 'reserved'],
  ['2606:4700:4700::1111', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001::1', 'reserved'], // Teredo
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:8.8.8.8', 'public'],
  ['0:0:0:0:0:ffff:192.168.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a00:1', 'private'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b:1::1', 'private'],
  ['::127.0.0.1', 'loopback'],
  ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:808:808::1', 'public'],
  ['example.com', 'not-an-ip'],
];

/** A resolver that answers from a table, as DNS would. */
function stub(answers: Record<string, string[]>): WebhookResolver {
  return (host) => {
    const a = answers[host];
    if (!a) return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

describe('address classes', () => {
  it.each(TABLE)('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('webhook URL guard', () => {
  const refusedLiterals = TABLE.filter(([, c]) => c !== 'public' && c !== 'not-an-ip');

  it.each(refusedLiterals)('refuses the literal %s (%s)', async (ip, cls) => {
    if (ip.includes('%')) return; // a zone id has no URL form
    const host = ip.includes(':') ? `[${ip}]` : ip;
    const url = `https://${host}:8443/hook`;
    expect(() => checkWebhookUrlForm(url, false)).toThrow(WebhookTargetError);
    await expect(checkWebhookAtCreation(url, false, stub({}))).rejects.toMatchObject({ addressClass: cls });
    // Allowed when the server allows private targets.
    expect(checkWebhookUrlForm(url, true).protocol).toBe('https:');
  });

  it.each(refusedLiterals)(
    'refuses a name resolving to %s (%s), at creation and at delivery',
    async (ip, cls) => {
      if (ip.includes('%')) return;
      const resolve = stub({ 'hooks.example.net': ['93.184.216.34', ip.split('%')[0]!] });
      await expect(
        checkWebhookAtCreation('https://hooks.example.net/x', false, resolve),
      ).rejects.toMatchObject({
        addressClass: cls,
      });
      const url = new URL('https://hooks.example.net/x');
      await expect(resolveWebhookTarget(url, false, resolve)).rejects.toBeInstanceOf(WebhookTargetError);
      expect((await resolveWebhookTarget(url, true, resolve)).address).toBe('93.184.216.34');
    },
  );

  it('accepts public literals and names, and connects to the checked address', async () => {
    const resolve = stub({ 'hooks.example.net': ['2606:4700:4700::1111', '93.184.216.34'] });
    await checkWebhookAtCreation('https://hooks.example.net/x', false, resolve);
    await checkWebhookAtCreation('http://8.8.8.8/x', false, stub({}));
    await checkWebhookAtCreation('http://[2606:4700:4700::1111]/x', false, stub({}));
    expect(await resolveWebhookTarget(new URL('https://hooks.example.net/x'), false, resolve)).toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('normalises numeric tricks to the address they mean', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/'])
      expect(() => checkWebhookUrlForm(url, false)).toThrow(/loopback/);
  });

  it('names the way out (push.allowPrivateTargets, serve --allow-private-webhooks) for private and local targets', async () => {
    const wayOut = /push\.allowPrivateTargets.*a2a-once serve --allow-private-webhooks/;
    for (const url of ['http://127.0.0.1:9/x', 'http://[::1]/x', 'http://10.0.0.1/x', 'http://localhost/x'])
      expect(() => checkWebhookUrlForm(url, false)).toThrow(wayOut);
    const resolve = stub({ 'hooks.example.net': ['192.168.1.1'] });
    await expect(
      resolveWebhookTarget(new URL('https://hooks.example.net/x'), false, resolve),
    ).rejects.toThrow(wayOut);
    // A refusal that no option lifts does not point at one.
    expect(() => checkWebhookUrlForm('ftp://8.8.8.8/x', false)).toThrow(/^url must be http or https$/);
  });

  it('refuses local names, other schemes and user info whatever DNS says', () => {
    for (const url of [
      'http://localhost/x',
      'http://LOCALHOST./x',
      'http://api.localhost/x',
      'http://printer.local/x',
      'http://metadata.google.internal/computeMetadata',
      'http://router.home.arpa/',
    ])
      expect(() => checkWebhookUrlForm(url, false)).toThrow(/local name/);
    expect(() => checkWebhookUrlForm('ftp://8.8.8.8/x', false)).toThrow(/http or https/);
    expect(() => checkWebhookUrlForm('file:///etc/passwd', true)).toThrow(/http or https/);
    expect(() => checkWebhookUrlForm('not a url', false)).toThrow(/absolute URL/);
    expect(() => checkWebhookUrlForm('https://user:pw@8.8.8.8/x', true)).toThrow(/user info/);
  });

  it('accepts at creation a name that does not resolve now (delivery checks again)', async () => {
    await checkWebhookAtCreation('https://not-yet.example.net/x', false, stub({}));
    const never: WebhookResolver = () => new Promise(() => undefined);
    await checkWebhookAtCreation('https://slow.example.net/x', false, never, 20);
  });

  it('logs a webhook only as scheme://host[:port]', () => {
    expect(webhookOrigin('https://h.example.net:8443/secret/path?token=abc')).toBe(
      'https://h.example.net:8443',
    );
    expect(webhookOrigin('nonsense')).toBe('(not a URL)');
  });
});

describe('a loopback webhook refused by a real server', () => {
  let server: A2AServer;
  let http: NodeServerHandle;
  let client: A2AClient;
  beforeAll(async () => {
    // Push on, private targets not allowed: the default a developer starts from.
    server = createA2AServer({
      card: { name: 'push', description: 'delivers push' },
      agent: { execute: (ctx) => ctx.complete('done') },
      logger: silentLogger,
      retention: false,
    });
    http = await serveNode(server.fetch);
    client = await A2AClient.fromCardUrl(http.url);
  });
  afterAll(async () => {
    await closeNode(http);
    await server.close();
  });

  it.each(['http://127.0.0.1:9/hook', 'http://localhost:9/hook'])(
    'CreateTaskPushNotificationConfig with %s: InvalidParams naming both ways to allow it',
    async (url) => {
      const sent = await client.send('hello', { key: false });
      if (!('task' in sent)) throw new Error('expected a task');
      const refused = await client.createPushConfig({ taskId: sent.task.id, url }).then(
        () => undefined,
        (err: unknown) => err as { code?: unknown; message?: unknown },
      );
      expect(refused?.code).toBe(-32602);
      expect(refused?.message).toMatch(/url refused: .*(loopback address|local name)/);
      expect(refused?.message).toContain('push.allowPrivateTargets');
      expect(refused?.message).toContain('a2a-once serve --allow-private-webhooks');
    },
  );
});
