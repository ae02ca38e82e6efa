/**
 * A fast path for reading the most common request of all, SendMessage / SendStreamingMessage params, when they
 * already are in canonical ProtoJSON form (camelCase, string enums, no nulls, no unknown fields, text/url/data
 * parts). Such input is returned as is, without the zod pass that costs more than the rest of a small send's
 * parsing; anything else returns `undefined` and goes through the lenient zod schema, which also words the
 * errors. A property test checks that whatever this accepts, zod accepts and reads identically.
 */
import type { SendMessageRequest } from './requests.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype
  );
}

function isStringArray(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const s of v) if (typeof s !== 'string') return false;
  return true;
}

const PART_CONTENT = new Set(['text', 'url', 'data']);
const PART_FIELDS = new Set(['text', 'url', 'data', 'metadata', 'filename', 'mediaType']);

function isPart(p: unknown): boolean {
  if (!isRecord(p)) return false;
  let content = 0;
  for (const k in p) {
    if (!PART_FIELDS.has(k)) return false;
    const v = p[k];
    if (PART_CONTENT.has(k)) {
      content++;
      if (k !== 'data' && typeof v !== 'string') return false;
    } else if (k === 'metadata' ? !isRecord(v) : typeof v !== 'string') return false;
  }
  return content === 1;
}

const MESSAGE_FIELDS = new Set([
  'messageId',
  'contextId',
  'taskId',
  'role',
  'parts',
  'metadata',
  'extensions',
  'referenceTaskIds',
]);

function isMessage(m: unknown): boolean {
  if (!isRecord(m)) return false;
  for (const k in m) {
    if (!MESSAGE_FIELDS.has(k)) return false;
    const v = m[k];
    switch (k) {
      case 'messageId':
        if (typeof v !== 'string' || v === '') return false;
        break;
      case 'contextId':
      case 'taskId':
        if (typeof v !== 'string') return false;
        break;
      case 'role':
        if (v !== 'ROLE_USER' && v !== 'ROLE_AGENT') return false;
        break;
      case 'parts':
        if (!Array.isArray(v) || v.length === 0) return false;
        for (const p of v as unknown[]) if (!isPart(p)) return false;
        break;
      case 'metadata':
        if (!isRecord(v)) return false;
        break;
      default:
        if (!isStringArray(v)) return false;
    }
  }
  return typeof m.messageId === 'string' && m.role !== undefined && m.parts !== undefined;
}

function isConfiguration(c: unknown): boolean {
  if (!isRecord(c)) return false;
  for (const k in c) {
    const v = c[k];
    if (k === 'returnImmediately') {
      if (typeof v !== 'boolean') return false;
    } else if (k === 'historyLength') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 2_147_483_647) return false;
    } else if (k === 'acceptedOutputModes') {
      if (!isStringArray(v)) return false;
    } else return false; // push configs and anything unusual take the full path
  }
  return true;
}

/** The params themselves when they are canonical and valid, else `undefined` (use the full schema). */
export function fastSendMessageRequest(raw: unknown): SendMessageRequest | undefined {
  if (!isRecord(raw) || !isMessage(raw.message)) return undefined;
  for (const k in raw) {
    const v = raw[k];
    if (k === 'message') continue;
    if (
      k === 'configuration'
        ? !isConfiguration(v)
        : k === 'metadata'
          ? !isRecord(v)
          : k !== 'tenant' || typeof v !== 'string'
    )
      return undefined;
  }
  return raw as unknown as SendMessageRequest;
}
