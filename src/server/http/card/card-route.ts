/**
 * `GET /.well-known/agent-card.json` (A2A §8.2, §8.6): the public card with JSONRPC and HTTP+JSON interfaces at
 * the serving origin (unless the host configured its own), `Cache-Control`, a content-hash `ETag`, a
 * `Last-Modified`, and 304 for a matching `If-None-Match` or `If-Modified-Since`. The media type follows the
 * request's `Accept` like every JSON answer (ADR 0042), so the answer varies on it; the body, and so the weak
 * ETag, is the same under either type.
 */
import { createHash } from 'node:crypto';
import type { AgentCard } from '../../../protocol/agent-card.js';
import { withInterfaces } from '../../card.js';
import type { CardSigner } from '../../card-signer.js';
import { cardToV03, withV03Interfaces } from '../../compat/v03-card.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import { responseMediaType } from '../wire/media-type.js';
import { respond } from '../wire/light-response.js';

interface RenderedCard {
  readonly body: string;
  readonly etag: string;
}

/** Which card a route serves: the v1.0 card, or (compat on) the v0.3 card (ADR 0099). */
export type CardForm = 'v1' | 'v0.3';

/** Serves the card; renders (and signs, when signing is configured: ADR 0074) once per origin. */
export class CardRoute {
  readonly #cache = new Map<string, Promise<RenderedCard>>();
  readonly #lastModified: string;
  readonly #lastModifiedMs: number;

  constructor(
    private readonly card: AgentCard,
    private readonly options: ResolvedHttpOptions,
    startedAt = Date.now(),
    private readonly signer?: CardSigner,
    private readonly form: CardForm = 'v1',
    /** The gRPC interface listed after the HTTP ones (docs/guides/grpc.md). */
    private readonly grpc?: { readonly url: string; readonly tenant?: string },
  ) {
    // HTTP dates have second precision; compare at that precision.
    this.#lastModifiedMs = Math.floor(startedAt / 1000) * 1000;
    this.#lastModified = new Date(this.#lastModifiedMs).toUTCString();
  }

  /** The card as served for a base URL. */
  cardFor(baseUrl: string): AgentCard {
    const card = withInterfaces(this.card, baseUrl, this.grpc);
    // With compat on, the v1.0 card also lists the v0.3 interfaces, after its own (ADR 0099).
    return this.options.compat.includes('0.3') ? withV03Interfaces(card) : card;
  }

  /** The object served for a base URL, signed when signing is configured (each form signs itself). */
  #served(baseUrl: string): Promise<object> {
    const card = this.cardFor(baseUrl);
    if (this.form === 'v1') return this.signer ? this.signer.sign(card, baseUrl) : Promise.resolve(card);
    const v03 = cardToV03(card, { embedV1Interfaces: true });
    return this.signer ? this.signer.signServed(v03, baseUrl) : Promise.resolve(v03);
  }

  #render(origin: string): Promise<RenderedCard> {
    let r = this.#cache.get(origin);
    if (!r) {
      const baseUrl = this.options.publicBaseUrl ?? origin;
      // Signed once per rendering, so the body, its signatures and the ETag over them stay the same (ADR 0074).
      r = this.#served(baseUrl).then((served) => {
        const body = JSON.stringify(served);
        const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        return { body, etag };
      });
      // Bounded: Host headers are client-controlled.
      if (this.#cache.size >= 64) this.#cache.clear();
      this.#cache.set(origin, r);
      // A rendering that failed is not kept: the next request tries again.
      r.catch(() => this.#cache.delete(origin));
    }
    return r;
  }

  /** Answers a GET (or HEAD) of the card. */
  async handle(req: Request, url: URL): Promise<Response> {
    const r = await this.#render(url.origin);
    const headers: Record<string, string> = {
      ETag: r.etag,
      'Last-Modified': this.#lastModified,
      'Cache-Control': `public, max-age=${this.options.cardMaxAgeSeconds}`,
      // A shared cache must not hand an `application/a2a+json` answer to a client that did not ask for it, nor,
      // with compat on, the v0.3 card to a client that asked for v1.0 (ADR 0099).
      Vary: this.options.compat.includes('0.3') ? 'Accept, A2A-Version' : 'Accept',
    };
    const inm = req.headers.get('if-none-match');
    const ims = req.headers.get('if-modified-since');
    const notModified =
      inm !== null
        ? inm.split(',').some((t) => t.trim() === r.etag || t.trim() === '*')
        : ims !== null && Date.parse(ims) >= this.#lastModifiedMs;
    if (notModified) return respond(304, null, headers);
    headers['Content-Type'] = responseMediaType(req.headers.get('accept'));
    return respond(200, req.method === 'HEAD' ? null : r.body, headers);
  }
}
