/**
 * The query parameters a `postgres://` store URL may carry: ours (`schema`, the connection limits of ADR 0063) and
 * those the `pg` driver reads. Anything else is refused with the closest known name: pg ignores parameters it
 * does not know, so a typo such as `?scheme=tenant_a` silently opened (and migrated) the `public` schema instead.
 */
import { StoreError } from '../sql/store-error.js';

/** Parameters a2a-once reads from a PostgreSQL store URL. */
const OURS = [
  'schema',
  'query_timeout',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'connect_timeout',
  'keepalives',
  'keepalives_idle',
  'options',
];

/** Parameters the `pg` driver's connection-string parser and client read. */
const DRIVERS = [
  'ssl',
  'sslmode',
  'sslcert',
  'sslkey',
  'sslrootcert',
  'sslnegotiation',
  'uselibpqcompat',
  'application_name',
  'fallback_application_name',
  'client_encoding',
  'encoding',
  'db',
  'host',
  'port',
  'user',
  'password',
  'replication',
];

const KNOWN: ReadonlySet<string> = new Set([...OURS, ...DRIVERS]);

/** Edit distance of two short names (parameter names: a few dozen characters at most). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The known parameter closest to `name`, when one is close enough to be a typo of it. */
function closest(name: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const known of KNOWN) {
    const d = distance(name.toLowerCase(), known);
    if (best === undefined || d < best.d) best = { name: known, d };
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(best.name.length / 4))
    ? best.name
    : undefined;
}

/**
 * Refuses a store URL carrying a parameter neither a2a-once nor the driver reads.
 * @throws StoreError `BAD_STORE_URL`, naming the parameter and the one it is probably a typo of
 */
export function checkStoreUrlParameters(url: URL): void {
  for (const name of new Set(url.searchParams.keys())) {
    if (KNOWN.has(name)) continue;
    const near = closest(name);
    throw new StoreError(
      'BAD_STORE_URL',
      `store URL parameter '${name}' is not one a2a-once or the pg driver reads` +
        (near !== undefined ? `; did you mean '${near}'?` : `; known: ${[...KNOWN].join(', ')}`),
    );
  }
}
