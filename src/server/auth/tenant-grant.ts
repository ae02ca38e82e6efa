/**
 * Tenant grants (ADR 0075): which A2A tenants a principal may use. A grant is checked before the request reaches
 * the handler, so a principal never touches a tenant it was not given; the refusal (403) says nothing about what
 * the tenant holds.
 */
import type { TenantGrant } from './authenticator.js';

/** Whether `grant` lets its principal use `tenant` (`''`: the request names no tenant). */
export function grants(grant: TenantGrant, tenant: string): boolean {
  return grant === '*' || grant.includes(tenant);
}

/**
 * A grant as configured: `'*'`, or a list of tenant names (each a non-empty string, `'*'` standing for every
 * tenant, `''` for the default tenant). `undefined` means the default tenant only.
 */
export function tenantGrantOf(value: unknown, what: string): TenantGrant {
  if (value === undefined) return Object.freeze(['']);
  if (value === '*') return '*';
  if (!Array.isArray(value) || value.some((t) => typeof t !== 'string'))
    throw new RangeError(`${what}: tenants must be '*' or a list of tenant names`);
  const list = value as string[];
  if (list.includes('*')) return '*';
  return Object.freeze([...new Set(list)]);
}
