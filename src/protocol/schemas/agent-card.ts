/**
 * Schemas of the agent card and its parts (A2A v1.0), tied to `agent-card.ts`. A client reads cards it did not
 * write, so REQUIRED repeated fields that a ProtoJSON writer would omit when empty are read as `[]` (digest
 * §2.1); only `supportedInterfaces` must be non-empty, since a card without one cannot be used.
 */
import { z } from 'zod';
import { wireObject } from './lenient.js';
import { JsonObjectSchema, stringArray, wireBool, wireMap } from './scalars.js';

/** A REQUIRED `repeated string` that may have been omitted because it was empty. */
const requiredStrings = stringArray.default(() => []);

/** How many members of a oneof-like object are set. */
function countSet(value: object): number {
  return Object.values(value).filter((member) => member !== undefined).length;
}

/** `map<string, string>` of OAuth scopes to their descriptions. Keys are scope names, never renamed. */
const scopes = wireMap(z.string()).optional();

/** `AgentInterface`: `protocolBinding` is an open string (`JSONRPC`, `GRPC`, `HTTP+JSON` or a URI). */
export const AgentInterfaceSchema = wireObject({
  url: z.string().min(1, 'must be a non-empty URL'),
  protocolBinding: z.string().min(1, 'must be a non-empty binding name'),
  protocolVersion: z.string().min(1, 'must be a "Major.Minor" version'),
  tenant: z.string().optional(),
});

/** `AgentExtension`. `params` is extension-specific and left as sent. */
export const AgentExtensionSchema = wireObject({
  uri: z.string().min(1, 'must be a non-empty URI'),
  description: z.string().optional(),
  required: wireBool.optional(),
  params: JsonObjectSchema.optional(),
});

/** `AgentCapabilities`: all optional; absent means false. */
export const AgentCapabilitiesSchema = wireObject({
  streaming: wireBool.optional(),
  pushNotifications: wireBool.optional(),
  extensions: z.array(AgentExtensionSchema).optional(),
  extendedAgentCard: wireBool.optional(),
});

/** `AgentProvider`. */
export const AgentProviderSchema = wireObject({
  url: z.string(),
  organization: z.string(),
});

/** `StringList`: how a `map<string, StringList>` value renders (A2A v1.0). */
export const StringListSchema = wireObject({ list: requiredStrings });

/** `SecurityRequirement`: scheme names (kept as sent) to required scopes. */
export const SecurityRequirementSchema = wireObject({
  schemes: wireMap(StringListSchema),
});

/** `OAuthFlows`: a oneof in v1.0. Reading requires at least one flow: v0.3 cards could list several. */
export const OAuthFlowsSchema = wireObject({
  authorizationCode: wireObject({
    authorizationUrl: z.string(),
    tokenUrl: z.string(),
    refreshUrl: z.string().optional(),
    scopes,
    pkceRequired: wireBool.optional(),
  }).optional(),
  clientCredentials: wireObject({
    tokenUrl: z.string(),
    refreshUrl: z.string().optional(),
    scopes,
  }).optional(),
  deviceCode: wireObject({
    deviceAuthorizationUrl: z.string(),
    tokenUrl: z.string(),
    refreshUrl: z.string().optional(),
    scopes,
  }).optional(),
  implicit: wireObject({
    authorizationUrl: z.string(),
    refreshUrl: z.string().optional(),
    scopes,
  }).optional(),
  password: wireObject({ tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes }).optional(),
}).refine((flows): boolean => countSet(flows) > 0, 'must have at least one OAuth flow');

const description = z.string().optional();

/** `SecurityScheme`: a oneof wrapper with exactly one member (A2A v1.0). */
export const SecuritySchemeSchema = wireObject({
  apiKeySecurityScheme: wireObject({ description, location: z.string(), name: z.string() }).optional(),
  httpAuthSecurityScheme: wireObject({
    description,
    scheme: z.string(),
    bearerFormat: z.string().optional(),
  }).optional(),
  oauth2SecurityScheme: wireObject({
    description,
    flows: OAuthFlowsSchema,
    oauth2MetadataUrl: z.string().optional(),
  }).optional(),
  openIdConnectSecurityScheme: wireObject({ description, openIdConnectUrl: z.string() }).optional(),
  mtlsSecurityScheme: wireObject({ description }).optional(),
}).refine((scheme): boolean => countSet(scheme) === 1, 'must have exactly one security scheme member');

/** `AgentSkill`. `inputModes`/`outputModes` override the card defaults. */
export const AgentSkillSchema = wireObject({
  id: z.string().min(1, 'must be a non-empty skill id'),
  name: z.string(),
  description: z.string(),
  tags: requiredStrings,
  examples: stringArray.optional(),
  inputModes: stringArray.optional(),
  outputModes: stringArray.optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
});

/** `AgentCardSignature`: a detached JWS; `header` is the unprotected header, left as sent (A2A §8.4). */
export const AgentCardSignatureSchema = wireObject({
  protected: z.string().min(1, 'must be a non-empty JWS protected header'),
  signature: z.string().min(1, 'must be a non-empty JWS signature'),
  header: JsonObjectSchema.optional(),
});

/** `AgentCard` (A2A v1.0). v0.3-only fields (`url`, `preferredTransport`, ...) are ignored as unknown. */
export const AgentCardSchema = wireObject({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: z.array(AgentInterfaceSchema).min(1, 'at least one interface is required'),
  provider: AgentProviderSchema.optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  // REQUIRED, but every member is optional, so a ProtoJSON writer may omit an empty one.
  capabilities: AgentCapabilitiesSchema.default(() => ({})),
  securitySchemes: wireMap(SecuritySchemeSchema).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
  defaultInputModes: requiredStrings,
  defaultOutputModes: requiredStrings,
  skills: z.array(AgentSkillSchema).default(() => []),
  signatures: z.array(AgentCardSignatureSchema).optional(),
  iconUrl: z.string().optional(),
});
