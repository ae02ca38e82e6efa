/**
 * The SSRF guard of webhook URLs (docs/semantics.md §5, ADR 0045), applied twice:
 * - when a config is created (CreateTaskPushNotificationConfig, or inline in a send): the form, the literal
 *   host, and what the name resolves to now, so a caller learns at once that its URL will never be served;
 * - at every delivery attempt: the name is resolved again, every address checked, and the connection is made to
 *   the address that was checked (`webhook-post.ts`), so a DNS answer that changes between check and connect
 *   (a rebind) cannot swap a public address for a private one.
 * Allowed: http and https to public addresses. `allowPrivate` (tests, trusted networks) lifts the address rules.
 */
import { lookup } from 'node:dns/promises';
import { classifyAddress, type AddressClass } from './address-class.js';

/** One address a name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to its addresses (the system resolver by default; tests pass a stub). */
export type WebhookResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address, in the order the system gives. */
export const systemResolver: WebhookResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A webhook URL the server will not call. The message names the host and why, never a path or a credential. */
export class WebhookTargetError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  override name = 'WebhookTargetError';
  constructor(
    message: string,
    /** The class of the address that was refused, when an address was the reason. */
    readonly addressClass?: AddressClass,
  ) {
    super(message);
  }
}

/** Names that mean "this machine" or "this network" whatever DNS says (RFC 6761, RFC 6762, RFC 8375). */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'];

function isLocalName(host: string): boolean {
  return host === 'localhost' || LOCAL_SUFFIXES.some((s) => host.endsWith(s));
}

/** The host of a URL as a resolver or a socket takes it: no brackets, no trailing dot, lower case. */
export function bareHost(url: URL): string {
  const h = url.hostname.toLowerCase();
  const unbracketed = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

/** `scheme://host[:port]` of a URL: all that is ever logged of a webhook (its path or query may hold a secret). */
export function webhookOrigin(url: URL | string): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * The way out, named in every refusal of a private target: the refusal is what a developer trying push on their
 * own machine meets first, and it is one option away from working there.
 */
const ALLOW_PRIVATE_HINT =
  'for local development or a trusted network, allow private targets: the server option ' +
  'push.allowPrivateTargets, or a2a-once serve --allow-private-webhooks';

function refuseAddress(host: string, address: string, cls: AddressClass): WebhookTargetError {
  const what = host === address ? `${address} is` : `${host} resolves to ${address},`;
  return new WebhookTargetError(
    `${what} a ${cls} address; webhooks go to public addresses only (${ALLOW_PRIVATE_HINT})`,
    cls,
  );
}

/**
 * Checks what can be checked without the network: an absolute http(s) URL without user info, whose host is not
 * a local name and, when it is an IP literal, a public address.
 * @throws WebhookTargetError
 */
export function checkWebhookUrlForm(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError('url is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebhookTargetError('url must be http or https');
  // Credentials belong in `authentication`, where they are sent as a header and never logged with the URL.
  if (url.username !== '' || url.password !== '')
    throw new WebhookTargetError('url must not carry user info; put credentials in authentication');
  if (allowPrivate) return url;
  const host = bareHost(url);
  if (isLocalName(host))
    throw new WebhookTargetError(
      `${host} is a local name; webhooks go to public hosts only (${ALLOW_PRIVATE_HINT})`,
    );
  const cls = classifyAddress(host);
  if (cls !== 'not-an-ip' && cls !== 'public') throw refuseAddress(host, host, cls);
  return url;
}

/**
 * The address to connect to for `url`: its IP literal, or what its name resolves to, every answer checked (one
 * private answer refuses the name: a name that points both ways is an attack or a mistake). The first address
 * is the one to use.
 * @throws WebhookTargetError for a refused address; the resolver's own error when the name does not resolve
 */
export async function resolveWebhookTarget(
  url: URL,
  allowPrivate: boolean,
  resolve: WebhookResolver,
): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const literal = classifyAddress(host);
  const answers =
    literal === 'not-an-ip' ? await resolve(host) : [{ address: host, family: host.includes(':') ? 6 : 4 }];
  if (answers.length === 0) throw new WebhookTargetError(`${host} resolves to no address`);
  if (!allowPrivate) {
    for (const a of answers) {
      const cls = classifyAddress(a.address);
      if (cls !== 'public') throw refuseAddress(host, a.address, cls);
    }
  }
  return answers[0]!;
}

/**
 * The check at config creation: the form, then the name's current answers. A name that does not resolve now (or
 * not within `timeoutMs`) is accepted: DNS may be down for a moment, and every delivery checks again.
 * @throws WebhookTargetError
 */
export async function checkWebhookAtCreation(
  raw: string,
  allowPrivate: boolean,
  resolve: WebhookResolver,
  timeoutMs = 2000,
): Promise<void> {
  const url = checkWebhookUrlForm(raw, allowPrivate);
  if (allowPrivate || classifyAddress(bareHost(url)) !== 'not-an-ip') return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), timeoutMs);
  });
  try {
    await Promise.race([resolveWebhookTarget(url, false, resolve), timeout]);
  } catch (err) {
    if (err instanceof WebhookTargetError) throw err;
    // Not resolvable now: delivery will try (and check) again.
  } finally {
    clearTimeout(timer);
  }
}
