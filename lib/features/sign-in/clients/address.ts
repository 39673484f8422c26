// Which IP addresses a Client ID Metadata Document may be fetched from: public unicast only (SSRF protection).

import { isIPv4, isIPv6 } from 'node:net';

/** An IPv4 range: its first address as a 32-bit number and its prefix length. */
type Ipv4Range = readonly [first: number, bits: number, why: string];

/** Addresses no metadata document is fetched from (RFC 6890 special-purpose registry; MCP security best practices, SSRF). */
const FORBIDDEN_IPV4: readonly Ipv4Range[] = [
  [0x00000000, 8, 'unspecified ("this network", RFC 1122)'],
  [0x0a000000, 8, 'private (RFC 1918)'],
  [0x64400000, 10, 'shared address space (CGNAT, RFC 6598)'],
  [0x7f000000, 8, 'loopback'],
  [0xa9fe0000, 16, 'link-local (cloud metadata endpoints live here)'],
  [0xac100000, 12, 'private (RFC 1918)'],
  [0xc0000000, 24, 'IETF protocol assignments (RFC 6890)'],
  [0xc0a80000, 16, 'private (RFC 1918)'],
  [0xc6120000, 15, 'benchmarking (RFC 2544)'],
  [0xe0000000, 4, 'multicast'],
  [0xf0000000, 4, 'reserved (and broadcast)'],
];

/** The 32-bit value of a dotted-quad IPv4 address (already checked by isIPv4). */
function ipv4Value(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv4Refusal(address: string): string | undefined {
  const value = ipv4Value(address);
  for (const [first, bits, why] of FORBIDDEN_IPV4) {
    // Compared by division, not by bit masks: JavaScript's bitwise operators are signed 32-bit.
    const size = 2 ** (32 - bits);
    if (Math.floor(value / size) === Math.floor(first / size)) return why;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (already checked by isIPv6), a trailing dotted IPv4 part included. */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const value = ipv4Value(tail);
    text = `${text.slice(0, lastColon + 1)}${Math.floor(value / 65536).toString(16)}:${(value % 65536).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const middle = rest === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16));
}

function ipv6Refusal(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embeddedIpv4 = `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  const zeroUpTo5 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroUpTo5 && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (zeroUpTo5 && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d) forms reach the IPv4 address
  // itself; NAT64 (64:ff9b::/96, RFC 6052) reaches it through a translator. Each is judged as that IPv4 address.
  if (zeroUpTo5 && (g5 === 0xffff || g5 === 0)) return ipv4Refusal(embeddedIpv4);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Refusal(embeddedIpv4);
  // 6to4 (2002::/16, RFC 3056) carries an IPv4 address in its second and third groups.
  if (g0 === 0x2002) return ipv4Refusal(`${g1 >> 8}.${g1 & 255}.${g2 >> 8}.${g2 & 255}`);
  if ((g0 & 0xfe00) === 0xfc00) return 'unique local (private, RFC 4193)';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local (deprecated, RFC 3879)';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0xdb8) return 'documentation (RFC 3849)';
  return undefined;
}

/**
 * Why an address must not be fetched from (loopback, private, link-local, unspecified, CGNAT, multicast, reserved,
 * or an IPv6 form embedding one of those), or undefined for a public unicast address. Anything that is not an IP
 * address at all is refused too: only checked addresses are connected to.
 *
 * @example
 * ```ts
 * addressRefusal('::ffff:127.0.0.1'); // 'loopback'
 * addressRefusal('93.184.216.34');    // undefined
 * ```
 */
export function addressRefusal(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return ipv4Refusal(bare);
  if (isIPv6(bare)) return ipv6Refusal(bare);
  return 'not an IP address';
}

/**
 * Why a host name must not be fetched from before it is even resolved: `localhost` and its subdomains (RFC 6761
 * §6.3: they resolve to loopback, whatever DNS says), with or without the trailing root dot. Undefined otherwise.
 */
export function hostNameRefusal(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? 'loopback (localhost, RFC 6761)' : undefined;
}
