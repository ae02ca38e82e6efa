/**
 * The field presence of the agent card's proto messages (A2A v1.0 `a2a.proto`), which the signing payload
 * needs (A2A §8.4.1 rule 1, via §5.7): a field marked REQUIRED is always written, a field with the `optional`
 * keyword is written whenever it is set, and any other field is left out at its default value (`""`, `false`,
 * `0`, an empty list or map). Message fields have presence of their own. `google.protobuf.Struct` values
 * (`AgentExtension.params`) are JSON, written as they are.
 */

/** How a field is present. */
export type Presence = 'required' | 'optional' | 'plain';

/** What a field holds. */
export type FieldShape =
  | { readonly kind: 'scalar' }
  | { readonly kind: 'struct' }
  | { readonly kind: 'message'; readonly of: () => MessageSchema }
  | { readonly kind: 'list'; readonly of?: () => MessageSchema }
  | { readonly kind: 'map'; readonly of?: () => MessageSchema };

/** One field: its presence and shape. */
export type FieldSchema = FieldShape & { readonly presence: Presence };

/** A message: its fields by JSON name. */
export type MessageSchema = Readonly<Record<string, FieldSchema>>;

const scalar = (presence: Presence): FieldSchema => ({ kind: 'scalar', presence });
const list = (presence: Presence, of?: () => MessageSchema): FieldSchema =>
  of ? { kind: 'list', presence, of } : { kind: 'list', presence };
const map = (presence: Presence, of?: () => MessageSchema): FieldSchema =>
  of ? { kind: 'map', presence, of } : { kind: 'map', presence };
// Message fields always have presence in proto3: set is written, even when empty.
const message = (of: () => MessageSchema, presence: Presence = 'plain'): FieldSchema => ({
  kind: 'message',
  presence,
  of,
});

const AGENT_INTERFACE: MessageSchema = {
  url: scalar('required'),
  protocolBinding: scalar('required'),
  tenant: scalar('plain'),
  protocolVersion: scalar('required'),
};

const AGENT_PROVIDER: MessageSchema = { url: scalar('required'), organization: scalar('required') };

const AGENT_EXTENSION: MessageSchema = {
  uri: scalar('plain'),
  description: scalar('plain'),
  required: scalar('plain'),
  params: { kind: 'struct', presence: 'plain' },
};

const AGENT_CAPABILITIES: MessageSchema = {
  streaming: scalar('optional'),
  pushNotifications: scalar('optional'),
  extensions: list('plain', () => AGENT_EXTENSION),
  extendedAgentCard: scalar('optional'),
};

const STRING_LIST: MessageSchema = { list: list('plain') };

const SECURITY_REQUIREMENT: MessageSchema = { schemes: map('plain', () => STRING_LIST) };

const flow = (required: readonly string[], fields: readonly string[]): MessageSchema =>
  Object.fromEntries([
    ...fields.map((f) => [f, required.includes(f) ? scalar('required') : scalar('plain')] as const),
    ['scopes', map(required.includes('scopes') ? 'required' : 'plain')] as const,
  ]);

const OAUTH_FLOWS: MessageSchema = {
  authorizationCode: message(() =>
    flow(
      ['authorizationUrl', 'tokenUrl', 'scopes'],
      ['authorizationUrl', 'tokenUrl', 'refreshUrl', 'pkceRequired'],
    ),
  ),
  clientCredentials: message(() => flow(['tokenUrl', 'scopes'], ['tokenUrl', 'refreshUrl'])),
  implicit: message(() => flow([], ['authorizationUrl', 'refreshUrl'])),
  password: message(() => flow([], ['tokenUrl', 'refreshUrl'])),
  deviceCode: message(() =>
    flow(
      ['deviceAuthorizationUrl', 'tokenUrl', 'scopes'],
      ['deviceAuthorizationUrl', 'tokenUrl', 'refreshUrl'],
    ),
  ),
};

const SECURITY_SCHEME: MessageSchema = {
  apiKeySecurityScheme: message(() => ({
    description: scalar('plain'),
    location: scalar('required'),
    name: scalar('required'),
  })),
  httpAuthSecurityScheme: message(() => ({
    description: scalar('plain'),
    scheme: scalar('required'),
    bearerFormat: scalar('plain'),
  })),
  oauth2SecurityScheme: message(() => ({
    description: scalar('plain'),
    flows: message(() => OAUTH_FLOWS, 'required'),
    oauth2MetadataUrl: scalar('plain'),
  })),
  openIdConnectSecurityScheme: message(() => ({
    description: scalar('plain'),
    openIdConnectUrl: scalar('required'),
  })),
  mtlsSecurityScheme: message(() => ({ description: scalar('plain') })),
};

const AGENT_SKILL: MessageSchema = {
  id: scalar('required'),
  name: scalar('required'),
  description: scalar('required'),
  tags: list('required'),
  examples: list('plain'),
  inputModes: list('plain'),
  outputModes: list('plain'),
  securityRequirements: list('plain', () => SECURITY_REQUIREMENT),
};

/** `AgentCard` without `signatures`, which the payload never holds (A2A §8.4.1 rule 3). */
export const AGENT_CARD_SCHEMA: MessageSchema = {
  name: scalar('required'),
  description: scalar('required'),
  supportedInterfaces: list('required', () => AGENT_INTERFACE),
  provider: message(() => AGENT_PROVIDER),
  version: scalar('required'),
  documentationUrl: scalar('optional'),
  capabilities: message(() => AGENT_CAPABILITIES, 'required'),
  securitySchemes: map('plain', () => SECURITY_SCHEME),
  securityRequirements: list('plain', () => SECURITY_REQUIREMENT),
  defaultInputModes: list('required'),
  defaultOutputModes: list('required'),
  skills: list('required', () => AGENT_SKILL),
  iconUrl: scalar('optional'),
};
