/**
 * The bytes an agent card signature covers (A2A §8.4.1), in the two forms in use (ADR 0072):
 *
 * - `a2a-spec`, what a2a-once signs: the card without `signatures`, with the proto's field presence applied as
 *   §8.4.1 rule 1 states it (REQUIRED fields always kept, `optional` fields kept when set, other fields left out
 *   at their default), `Struct` values and fields outside the schema kept as they are, then RFC 8785.
 * - `a2a-js`, what `@a2a-js/sdk` 1.3.0 and a2a-python (since its RFC 8785 fix) compute: a proto round trip (fields
 *   outside the schema dropped, every non-`optional` field at its default dropped, REQUIRED ones included), then
 *   every empty string, `null`, empty list and empty object removed at any depth, `Struct` contents included,
 *   then RFC 8785. It agrees with `a2a-spec` on every card without such empty values.
 */
import { isPlainRecord } from '../protocol/schemas/lenient.js';
import { AGENT_CARD_SCHEMA, type FieldSchema, type MessageSchema } from './card-schema.js';
import { canonicalJson } from './jcs.js';

/** The canonical forms a signature can be made over. */
export type CanonicalForm = 'a2a-spec' | 'a2a-js';

const SIGNATURES = 'signatures';

/**
 * The protected header parameter in which a2a-once names the form a signature covers (a collision-resistant
 * private name, RFC 7515 §4.3; other verifiers ignore it). Being protected, it cannot be changed without
 * breaking the signature, so a verifier that reads it never tries the other form (ADR 0072).
 */
export const CANONICAL_FORM_HEADER = 'https://a2a-once.dev/card-signing/form';

/** The card as the `a2a-spec` form writes it: the JSON object a2a-once serves and signs. */
export function specSigningObject(card: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { [SIGNATURES]: _signatures, ...rest } = card;
  return presence(rest, AGENT_CARD_SCHEMA, 'a2a-spec');
}

/** The card as `@a2a-js/sdk`'s `canonicalizeAgentCard` reduces it, before RFC 8785. */
export function a2aJsSigningObject(card: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { [SIGNATURES]: _signatures, ...rest } = card;
  const cleaned = withoutEmpty(presence(rest, AGENT_CARD_SCHEMA, 'a2a-js'));
  return isPlainRecord(cleaned) ? cleaned : {};
}

/** The canonical text (RFC 8785) a signature in `form` covers. Throws `CanonicalFormError` if it has none. */
export function canonicalAgentCard(card: object, form: CanonicalForm = 'a2a-spec'): string {
  const record = card as Readonly<Record<string, unknown>>;
  return canonicalJson(form === 'a2a-spec' ? specSigningObject(record) : a2aJsSigningObject(record));
}

function isDefaultScalar(value: unknown): boolean {
  return value === '' || value === false || value === 0;
}

function presence(obj: Readonly<Record<string, unknown>>, schema: MessageSchema, form: CanonicalForm) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined) continue;
    const field = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (field === undefined) {
      // Outside the schema: a2a-once signs what it serves; a proto round trip drops it.
      if (form === 'a2a-spec') setOwn(out, key, value);
      continue;
    }
    // ProtoJSON reads null as the default of any field that is not a `Value` (A2A v1.0).
    if (value === null) continue;
    const written = fieldValue(value, field, form);
    if (written !== OMIT) setOwn(out, key, written);
  }
  return out;
}

const OMIT = Symbol('omit');

function fieldValue(value: unknown, field: FieldSchema, form: CanonicalForm): unknown {
  // In a proto round trip REQUIRED is only an annotation: the field is written like any plain one.
  const kept = field.presence === 'optional' || (form === 'a2a-spec' && field.presence === 'required');
  switch (field.kind) {
    case 'scalar':
      return !kept && isDefaultScalar(value) ? OMIT : value;
    case 'struct':
      return value;
    case 'message':
      return isPlainRecord(value) ? presence(value, field.of(), form) : value;
    case 'list': {
      if (!Array.isArray(value)) return value;
      if (value.length === 0 && !kept) return OMIT;
      const of = field.of;
      const items = value as readonly unknown[];
      return of ? items.map((v) => (isPlainRecord(v) ? presence(v, of(), form) : v)) : items;
    }
    case 'map': {
      if (!isPlainRecord(value)) return value;
      const entries = Object.entries(value);
      if (entries.length === 0 && !kept) return OMIT;
      const of = field.of;
      if (!of) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of entries) setOwn(out, k, isPlainRecord(v) ? presence(v, of(), form) : v);
      return out;
    }
  }
}

/** `@a2a-js/sdk`'s `cleanEmpty`: empty strings, nulls, empty lists and empty objects removed at any depth. */
function withoutEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isPlainRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const cleaned = withoutEmpty(v);
      if (cleaned !== undefined) setOwn(out, k, cleaned);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/** An own property even for a key such as `__proto__`, which JSON.parse gives as an ordinary member. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
