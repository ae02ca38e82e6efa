/**
 * v1.0 security schemes and requirements in their v0.3 JSON form (the v0.3.0 JSON schema's `SecurityScheme`, an
 * OpenAPI-like object with `type`, and `security`, a list of `{ name: scopes[] }`), for the v0.3 card (ADR 0099).
 * v1.0's `deviceCode` OAuth flow has no v0.3 form and is dropped; an API key location other than `query` or
 * `cookie` is written as `header`, the OpenAPI default, as `@a2a-js/sdk` does.
 */
import type { OAuthFlows, SecurityRequirement, SecurityScheme } from '../../protocol/agent-card.js';

type Json = Record<string, unknown>;

function described(out: Json, description: string | undefined): Json {
  if (description !== undefined && description !== '') out.description = description;
  return out;
}

function flowsToV03(flows: OAuthFlows): Json {
  const out: Json = {};
  const scopes = (s: Record<string, string> | undefined) => ({ ...(s ?? {}) });
  const refresh = (o: Json, r: string | undefined) => {
    if (r !== undefined && r !== '') o.refreshUrl = r;
    return o;
  };
  const ac = flows.authorizationCode;
  if (ac)
    out.authorizationCode = refresh(
      { authorizationUrl: ac.authorizationUrl, tokenUrl: ac.tokenUrl, scopes: scopes(ac.scopes) },
      ac.refreshUrl,
    );
  const cc = flows.clientCredentials;
  if (cc)
    out.clientCredentials = refresh({ tokenUrl: cc.tokenUrl, scopes: scopes(cc.scopes) }, cc.refreshUrl);
  const im = flows.implicit;
  if (im)
    out.implicit = refresh(
      { authorizationUrl: im.authorizationUrl, scopes: scopes(im.scopes) },
      im.refreshUrl,
    );
  const pw = flows.password;
  if (pw) out.password = refresh({ tokenUrl: pw.tokenUrl, scopes: scopes(pw.scopes) }, pw.refreshUrl);
  return out;
}

/** One v1.0 security scheme as v0.3's; undefined for an empty oneof (nothing to state). */
export function securitySchemeToV03(s: SecurityScheme): Json | undefined {
  if (s.httpAuthSecurityScheme) {
    const h = s.httpAuthSecurityScheme;
    const out: Json = { type: 'http', scheme: h.scheme };
    if (h.bearerFormat !== undefined && h.bearerFormat !== '') out.bearerFormat = h.bearerFormat;
    return described(out, h.description);
  }
  if (s.apiKeySecurityScheme) {
    const a = s.apiKeySecurityScheme;
    const where = a.location === 'query' || a.location === 'cookie' ? a.location : 'header';
    return described({ type: 'apiKey', in: where, name: a.name }, a.description);
  }
  if (s.oauth2SecurityScheme) {
    const o = s.oauth2SecurityScheme;
    const out: Json = { type: 'oauth2', flows: flowsToV03(o.flows) };
    if (o.oauth2MetadataUrl !== undefined && o.oauth2MetadataUrl !== '')
      out.oauth2MetadataUrl = o.oauth2MetadataUrl;
    return described(out, o.description);
  }
  if (s.openIdConnectSecurityScheme) {
    const o = s.openIdConnectSecurityScheme;
    return described({ type: 'openIdConnect', openIdConnectUrl: o.openIdConnectUrl }, o.description);
  }
  if (s.mtlsSecurityScheme) return described({ type: 'mutualTLS' }, s.mtlsSecurityScheme.description);
  return undefined;
}

/** The named schemes of a card in v0.3 form. */
export function securitySchemesToV03(schemes: Readonly<Record<string, SecurityScheme>>): Json {
  const out: Json = {};
  for (const [name, s] of Object.entries(schemes)) {
    const v = securitySchemeToV03(s);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** v1.0 `securityRequirements` as v0.3 `security`: `[{ scheme: scopes[] }]`. */
export function securityToV03(reqs: readonly SecurityRequirement[]): Record<string, string[]>[] {
  return reqs.map((r) =>
    Object.fromEntries(Object.entries(r.schemes).map(([name, scopes]) => [name, [...(scopes.list ?? [])]])),
  );
}
