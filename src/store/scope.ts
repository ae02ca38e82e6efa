/**
 * Who a store operation acts for. Tasks, keys and push configs are partitioned by tenant and owner, so a key
 * presented by another tenant or principal never reaches the first one's task (docs/semantics.md §1 "Scope").
 */

/** The partition of an operation: the A2A tenant and the authenticated principal ('' when there is none). */
export interface Scope {
  readonly tenant: string;
  readonly owner: string;
}

/** The scope of an unauthenticated caller on the default tenant. */
export const DEFAULT_SCOPE: Scope = Object.freeze({ tenant: '', owner: '' });
