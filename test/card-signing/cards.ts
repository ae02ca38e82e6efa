/** Agent cards as real servers publish them, for the signing tests. */
import type { AgentCard } from '../../src/protocol/agent-card.js';

/** A card like an a2a-once server serves: interfaces, extensions with params, skills, a security scheme. */
export function publishedCard(): AgentCard {
  return {
    name: 'Route planner',
    description: 'Plans routes — vite, très vite 🚀',
    version: '1.4.0',
    supportedInterfaces: [
      { url: 'https://agent.example/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    provider: { organization: 'Example Geo', url: 'https://geo.example' },
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: 'https://a2a-rust.com/extensions/idempotency/v1',
          description: 'Idempotent sends',
          required: false,
          params: { keyTtlSeconds: 86400, ratio: 0.000001, big: 1e21 },
        },
      ],
    },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
    securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'route',
        name: 'Route',
        description: 'Finds a route',
        tags: ['maps', 'routing'],
        examples: ['A to B'],
      },
      { id: 'eta', name: 'ETA', description: 'Estimates arrival', tags: ['time'] },
    ],
    documentationUrl: 'https://geo.example/docs',
  };
}
