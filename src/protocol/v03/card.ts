/**
 * The v0.3 agent card, read into the v1.0 `AgentCard` (ADR 0102). A v0.3 card names one `url` with its
 * `preferredTransport` (JSONRPC when absent) and `protocolVersion`, and more in `additionalInterfaces`; here each
 * becomes a v1.0 interface at the card's `Major.Minor` version, so the client's interface selection sees a v0.3
 * agent as a card whose interfaces are all 0.x. Capabilities keep their extensions (the idempotency extension
 * is the evidence the retry rule reads, docs/semantics.md §7); `supportsAuthenticatedExtendedCard` is
 * `capabilities.extendedAgentCard`; security schemes and requirements are carried over to their v1.0 oneof form.
 * The result goes through the v1.0 card parser, so every v1.0 check applies.
 *
 * `cardToV03` is the inverse, for the round-trip tests and for anyone serving a v0.3 card.
 */
import { z } from 'zod';
import type { AgentCard, AgentInterface, SecurityRequirement, SecurityScheme } from '../agent-card.js';
import { parseAgentCard, parseAgentResponse } from '../parse.js';
import { isPlainRecord } from '../schemas/lenient.js';
import { JsonObjectSchema, wireMap } from '../schemas/scalars.js';

// Maps refuse a `__proto__` key and free-form objects are kept whole, as in v1.0: zod's record would drop such a
// member in silence, and a scheme or requirement lost that way changes what the card asks of a caller (ADR 0031).
const jsonObject = JsonObjectSchema;
const scopes = wireMap(z.string()).optional();

const V03OAuthFlowsSchema = z.object({
  authorizationCode: z
    .object({ authorizationUrl: z.string(), tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes })
    .optional(),
  clientCredentials: z.object({ tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes }).optional(),
  implicit: z.object({ authorizationUrl: z.string(), refreshUrl: z.string().optional(), scopes }).optional(),
  password: z.object({ tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes }).optional(),
});

const description = z.string().optional();

const V03SecuritySchemeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('apiKey'), in: z.string(), name: z.string(), description }),
  z.object({ type: z.literal('http'), scheme: z.string(), bearerFormat: z.string().optional(), description }),
  z.object({
    type: z.literal('oauth2'),
    flows: V03OAuthFlowsSchema,
    oauth2MetadataUrl: z.string().optional(),
    description,
  }),
  z.object({ type: z.literal('openIdConnect'), openIdConnectUrl: z.string(), description }),
  z.object({ type: z.literal('mutualTLS'), description }),
]);

const V03SecuritySchema = z.array(wireMap(z.array(z.string())));

/** The v0.3 agent card (v0.3.0 JSON schema); fields v1.0 has no place for are ignored. */
export const V03AgentCardSchema = z.object({
  name: z.string(),
  description: z.string(),
  url: z.string().min(1),
  preferredTransport: z.string().min(1).optional(),
  protocolVersion: z.string().min(1),
  additionalInterfaces: z
    .array(z.object({ url: z.string().min(1), transport: z.string().min(1) }))
    .optional(),
  version: z.string(),
  provider: z.object({ organization: z.string(), url: z.string() }).optional(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  capabilities: z
    .object({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
      extensions: z
        .array(
          z.object({
            uri: z.string().min(1),
            description,
            required: z.boolean().optional(),
            params: jsonObject.optional(),
          }),
        )
        .optional(),
    })
    .default({}),
  defaultInputModes: z.array(z.string()).default([]),
  defaultOutputModes: z.array(z.string()).default([]),
  skills: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()).default([]),
        examples: z.array(z.string()).optional(),
        inputModes: z.array(z.string()).optional(),
        outputModes: z.array(z.string()).optional(),
        security: V03SecuritySchema.optional(),
      }),
    )
    .default([]),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
  securitySchemes: wireMap(V03SecuritySchemeSchema).optional(),
  security: V03SecuritySchema.optional(),
  signatures: z
    .array(z.object({ protected: z.string(), signature: z.string(), header: jsonObject.optional() }))
    .optional(),
});

/** A v0.3 agent card. */
export type V03AgentCard = z.infer<typeof V03AgentCardSchema>;

/** Whether `raw` is a v0.3 card: `url` and a 0.x `protocolVersion`, and no v1.0 `supportedInterfaces`. */
export function isV03Card(raw: unknown): boolean {
  return (
    isPlainRecord(raw) &&
    raw.supportedInterfaces === undefined &&
    typeof raw.url === 'string' &&
    typeof raw.protocolVersion === 'string' &&
    /^\s*0\./.test(raw.protocolVersion)
  );
}

/** `Major.Minor` of a version such as `0.3.0`. */
function majorMinor(version: string): string {
  const m = /^\s*(\d+)(?:\.(\d+))?/.exec(version);
  return m === null ? version : `${m[1]}.${m[2] ?? '0'}`;
}

function securityToV1(s: z.infer<typeof V03SecuritySchema>): SecurityRequirement[] {
  return s.map((req) => ({
    schemes: Object.fromEntries(Object.entries(req).map(([name, list]) => [name, { list: [...list] }])),
  }));
}

function schemeToV1(s: z.infer<typeof V03SecuritySchemeSchema>): SecurityScheme {
  const d = s.description === undefined ? {} : { description: s.description };
  switch (s.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: { ...d, location: s.in, name: s.name } };
    case 'http':
      return {
        httpAuthSecurityScheme: {
          ...d,
          scheme: s.scheme,
          ...(s.bearerFormat === undefined ? {} : { bearerFormat: s.bearerFormat }),
        },
      };
    case 'oauth2':
      return {
        oauth2SecurityScheme: {
          ...d,
          flows: structuredClone(s.flows),
          ...(s.oauth2MetadataUrl === undefined ? {} : { oauth2MetadataUrl: s.oauth2MetadataUrl }),
        },
      };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: { ...d, openIdConnectUrl: s.openIdConnectUrl } };
    case 'mutualTLS':
      return { mtlsSecurityScheme: d };
  }
}

/** The interfaces of a v0.3 card, the primary first, each once. */
function interfacesOf(c: V03AgentCard): AgentInterface[] {
  const protocolVersion = majorMinor(c.protocolVersion);
  const all = [
    { url: c.url, protocolBinding: c.preferredTransport ?? 'JSONRPC', protocolVersion },
    ...(c.additionalInterfaces ?? []).map((i) => ({
      url: i.url,
      protocolBinding: i.transport,
      protocolVersion,
    })),
  ];
  return all.filter(
    (i, n) => all.findIndex((j) => j.url === i.url && j.protocolBinding === i.protocolBinding) === n,
  );
}

/** A parsed v0.3 card as v1.0 card JSON (before the v1.0 parser reads it). */
function toV1Json(c: V03AgentCard): unknown {
  const caps = c.capabilities;
  return {
    name: c.name,
    description: c.description,
    version: c.version,
    supportedInterfaces: interfacesOf(c),
    ...(c.provider === undefined ? {} : { provider: c.provider }),
    ...(c.documentationUrl === undefined ? {} : { documentationUrl: c.documentationUrl }),
    ...(c.iconUrl === undefined ? {} : { iconUrl: c.iconUrl }),
    capabilities: {
      ...(caps.streaming === undefined ? {} : { streaming: caps.streaming }),
      ...(caps.pushNotifications === undefined ? {} : { pushNotifications: caps.pushNotifications }),
      ...(caps.extensions === undefined ? {} : { extensions: caps.extensions }),
      ...(c.supportsAuthenticatedExtendedCard === undefined
        ? {}
        : { extendedAgentCard: c.supportsAuthenticatedExtendedCard }),
    },
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills.map(({ security, ...skill }) =>
      security === undefined ? skill : { ...skill, securityRequirements: securityToV1(security) },
    ),
    ...(c.securitySchemes === undefined
      ? {}
      : {
          securitySchemes: Object.fromEntries(
            Object.entries(c.securitySchemes).map(([k, s]) => [k, schemeToV1(s)]),
          ),
        }),
    ...(c.security === undefined ? {} : { securityRequirements: securityToV1(c.security) }),
    ...(c.signatures === undefined ? {} : { signatures: c.signatures }),
  };
}

/** A v0.3 card (unchecked JSON) as a v1.0 `AgentCard`, or `InvalidAgentResponseError` naming the field. */
export function cardToV1(raw: unknown): AgentCard {
  return parseAgentCard(toV1Json(parseAgentResponse(V03AgentCardSchema, raw, 'v0.3 agent card')));
}

/**
 * Any agent card: a v0.3 card (`isV03Card`) is read by `cardToV1`, anything else by the v1.0 parser. A v0.3 card
 * that also embeds v1.0 `supportedInterfaces` (as `@a2a-js/sdk`'s compat card does) is read as v1.0, keeping its
 * v0.3 `supportsAuthenticatedExtendedCard` when v1.0's `extendedAgentCard` is not said.
 */
export function parseAnyAgentCard(raw: unknown): AgentCard {
  if (isV03Card(raw)) return cardToV1(raw);
  const card = parseAgentCard(raw);
  const legacy = isPlainRecord(raw) ? raw.supportsAuthenticatedExtendedCard : undefined;
  if (typeof legacy === 'boolean' && card.capabilities.extendedAgentCard === undefined)
    card.capabilities.extendedAgentCard = legacy;
  return card;
}

function securityToV03(s: SecurityRequirement[]): Record<string, string[]>[] {
  return s.map((r) => Object.fromEntries(Object.entries(r.schemes).map(([k, v]) => [k, [...v.list]])));
}

/**
 * A v1.0 card as a v0.3 card: the first interface is `url`/`preferredTransport`/`protocolVersion`, the rest
 * `additionalInterfaces`. What v0.3 cannot hold is dropped: tenants, other interfaces' versions, security schemes
 * (only `security` requirements are kept), device-code OAuth flows.
 */
export function cardToV03(card: AgentCard): V03AgentCard {
  const [first, ...rest] = card.supportedInterfaces;
  const caps = card.capabilities;
  const out: V03AgentCard = {
    name: card.name,
    description: card.description,
    url: first?.url ?? '',
    preferredTransport: first?.protocolBinding ?? 'JSONRPC',
    protocolVersion: first?.protocolVersion ?? '0.3',
    version: card.version,
    capabilities: {
      ...(caps.streaming === undefined ? {} : { streaming: caps.streaming }),
      ...(caps.pushNotifications === undefined ? {} : { pushNotifications: caps.pushNotifications }),
      ...(caps.extensions === undefined ? {} : { extensions: structuredClone(caps.extensions) }),
    },
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map(({ securityRequirements, ...skill }) =>
      securityRequirements === undefined
        ? structuredClone(skill)
        : { ...structuredClone(skill), security: securityToV03(securityRequirements) },
    ),
  };
  if (rest.length > 0)
    out.additionalInterfaces = rest.map((i) => ({ url: i.url, transport: i.protocolBinding }));
  if (card.provider !== undefined) out.provider = { ...card.provider };
  if (card.documentationUrl !== undefined) out.documentationUrl = card.documentationUrl;
  if (card.iconUrl !== undefined) out.iconUrl = card.iconUrl;
  if (caps.extendedAgentCard !== undefined) out.supportsAuthenticatedExtendedCard = caps.extendedAgentCard;
  if (card.securityRequirements !== undefined) out.security = securityToV03(card.securityRequirements);
  if (card.signatures !== undefined) out.signatures = structuredClone(card.signatures);
  return out;
}
