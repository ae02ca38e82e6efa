/**
 * What kind of address an IP is, for the webhook SSRF guard (docs/semantics.md §5, ADR 0045). A webhook URL is
 * chosen by the caller and fetched by the server, so without a check a caller could make the server POST to its
 * own loopback, to the cloud metadata service (169.254.169.254) or into the private network behind it.
 *
 * Only `public` addresses are webhook targets (unless the server allows private ones). IPv4 hidden in IPv6
 * (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, IPv4-compatible `::/96`, 6to4 `2002::/16`) is judged by
 * the IPv4 address it carries, since that is where a connection ends up.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The classes the guard tells apart; everything but `public` is refused. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'unique-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'
  | 'not-an-ip';

/** One IPv4 range: network (as an unsigned 32-bit number), prefix length, class. */
type V4Range = readonly [network: number, prefix: number, cls: AddressClass];

function v4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** Most specific first where ranges nest (255.255.255.255 inside 240/4). */
const V4_RANGES: readonly V4Range[] = [
  [v4(255, 255, 255, 255), 32, 'broadcast'],
  [v4(0, 0, 0, 0), 8, 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on most systems
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'cgnat'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'], // cloud metadata services live here
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24, 'documentation'],
  [v4(192, 88, 99, 0), 24, 'reserved'], // 6to4 relay anycast (deprecated)
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking
  [v4(198, 51, 100, 0), 24, 'documentation'],
  [v4(203, 0, 113, 0), 24, 'documentation'],
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
];

function inV4(n: number, network: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (n & mask) >>> 0 === network;
}

function parseV4(ip: string): number {
  const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
  return v4(a, b, c, d);
}

function classifyV4(n: number): AddressClass {
  for (const [network, prefix, cls] of V4_RANGES) if (inV4(n, network, prefix)) return cls;
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (`isIPv6` already said it is one; a zone id is dropped). */
function parseV6(ip: string): number[] {
  let s = ip.split('%')[0]!;
  const tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    const n = parseV4(last);
    tail.push(n >>> 16, n & 0xffff);
    // The dotted quad is two groups: stand in two zeros for it, then put its value back below.
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  let out: number[];
  if (rest === undefined) out = groups(head);
  else {
    const h = groups(head);
    const r = groups(rest);
    out = [...h, ...Array<number>(8 - h.length - r.length).fill(0), ...r];
  }
  if (tail.length === 2) {
    out[6] = tail[0]!;
    out[7] = tail[1]!;
  }
  return out;
}

function embeddedV4(hi: number, lo: number): number {
  return ((hi << 16) | lo) >>> 0;
}

function classifyV6(g: number[]): AddressClass {
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d: the IPv4 address decides.
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return classifyV4(embeddedV4(g[6]!, g[7]!));
  // NAT64 well-known prefix 64:ff9b::/96: the IPv4 address decides.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return classifyV4(embeddedV4(g[6]!, g[7]!));
  // NAT64 local-use prefix 64:ff9b:1::/48 translates into a network of the operator's choosing.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'private';
  // 6to4 2002:a.b.c.d::/48: the IPv4 address decides.
  if (g[0] === 0x2002) return classifyV4(embeddedV4(g[1]!, g[2]!));
  const first = g[0]!;
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated)
  if ((first & 0xfe00) === 0xfc00) return 'unique-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if (first === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (first === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'reserved'; // discard-only 100::/64
  // 2001::/23 holds Teredo (2001::/32) and other IETF assignments, none a webhook host.
  if (first === 0x2001 && g[1]! < 0x0200) return 'reserved';
  // Only global unicast 2000::/3 is routable on the internet.
  if ((first & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** The class of an IP address literal (without brackets); `not-an-ip` for anything else. */
export function classifyAddress(ip: string): AddressClass {
  if (isIPv4(ip)) return classifyV4(parseV4(ip));
  if (isIPv6(ip)) return classifyV6(parseV6(ip));
  return 'not-an-ip';
}
