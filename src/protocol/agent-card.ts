/**
 * The agent card (proto `AgentCard` and its parts; A2A v1.0). Served at `/.well-known/agent-card.json`.
 */
import type { JsonObject } from './model.js';

/** One way to reach the agent. `protocolBinding` is `JSONRPC`, `GRPC`, `HTTP+JSON` or a URI. */
export interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

/** An extension the agent supports (A2A §4.6). */
export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

/** Optional capabilities; an absent value means false. */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

/** The organisation behind the agent. */
export interface AgentProvider {
  url: string;
  organization: string;
}

/** A `map<string, StringList>` value renders as `{ list: [...] }`. */
export interface StringList {
  list: string[];
}

/** `SecurityRequirement`: scheme name to required scopes. */
export interface SecurityRequirement {
  schemes: { [scheme: string]: StringList };
}

/** OAuth 2 flows (a oneof). */
export interface OAuthFlows {
  authorizationCode?: {
    authorizationUrl: string;
    tokenUrl: string;
    refreshUrl?: string;
    scopes?: { [scope: string]: string };
    pkceRequired?: boolean;
  };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes?: { [scope: string]: string } };
  deviceCode?: {
    deviceAuthorizationUrl: string;
    tokenUrl: string;
    refreshUrl?: string;
    scopes?: { [scope: string]: string };
  };
  implicit?: { authorizationUrl: string; refreshUrl?: string; scopes?: { [scope: string]: string } };
  password?: { tokenUrl: string; refreshUrl?: string; scopes?: { [scope: string]: string } };
}

/** `SecurityScheme`: a oneof wrapper with exactly one member. */
export interface SecurityScheme {
  apiKeySecurityScheme?: { description?: string; location: string; name: string };
  httpAuthSecurityScheme?: { description?: string; scheme: string; bearerFormat?: string };
  oauth2SecurityScheme?: { description?: string; flows: OAuthFlows; oauth2MetadataUrl?: string };
  openIdConnectSecurityScheme?: { description?: string; openIdConnectUrl: string };
  mtlsSecurityScheme?: { description?: string };
}

/** A skill the agent offers. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** A detached JWS over the canonical card (A2A §8.4). */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
}

/** The agent card. */
export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: { [name: string]: SecurityScheme };
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: AgentCardSignature[];
  iconUrl?: string;
}
