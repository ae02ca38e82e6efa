/**
 * `GET /.well-known/jwks.json` (configurable): the public keys a server signs its cards with (A2A §8.4.2 `jku`,
 * ADR 0074), so an operator can hand them to clients. A client trusts a JWKS URL only when its caller names it
 * (ADR 0073); this route is a convenience, never a trust root by itself.
 */
import type { CardSigner } from '../../card-signer.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import { respond } from '../wire/light-response.js';

/** Serves the JWKS of a card signer. */
export class JwksRoute {
  readonly path: string;
  #body: Promise<string> | undefined;

  constructor(
    private readonly signer: CardSigner,
    private readonly options: ResolvedHttpOptions,
  ) {
    this.path = signer.jwksPath ?? '';
  }

  /** Answers a GET (or HEAD) of the JWKS. */
  async handle(req: Request): Promise<Response> {
    this.#body ??= this.signer.jwks().then((jwks) => JSON.stringify(jwks));
    const body = await this.#body;
    return respond(200, req.method === 'HEAD' ? null : body, {
      'Content-Type': 'application/jwk-set+json',
      'Cache-Control': `public, max-age=${this.options.cardMaxAgeSeconds}`,
    });
  }
}
