// Which IP addresses a client's documents (metadata, key set) may be fetched from: public unicast only (SSRF protection).

import { isIP, isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The special-purpose ranges no metadata document is fetched from (RFC 6890; MCP security best practices, SSRF), by
 * the name ipaddr.js gives them, with why. Its `reserved` covers the IETF assignments, the documentation nets
 * (TEST-NET-1 to 3, 2001:db8::/32) and 240.0.0.0/4.
 */
const REFUSED_IPV4: Readonly<Record<string, string>> = {
  unspecified: 'unspecified ("this network", RFC 1122)',
  private: 'private (RFC 1918)',
  carrierGradeNat: 'shared address space (CGNAT, RFC 6598)',
  loopback: 'loopback',
  linkLocal: 'link-local (cloud metadata endpoints live here)',
  multicast: 'multicast',
  broadcast: 'reserved (broadcast)',
  reserved: 'reserved (IETF protocol assignments, documentation, future use; RFC 6890)',
};
const REFUSED_IPV6: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  uniqueLocal: 'unique local (private, RFC 4193)',
  linkLocal: 'link-local',
  multicast: 'multicast',
  reserved: 'documentation (RFC 3849)',
};
/** Special-purpose ranges ipaddr.js 1.9 does not name. */
const UNNAMED_IPV4 = { 'benchmarking (RFC 2544)': ipaddr.IPv4.parseCIDR('198.18.0.0/15') };
const UNNAMED_IPV6 = { 'site-local (deprecated, RFC 3879)': ipaddr.IPv6.parseCIDR('fec0::/10') };

function ipv4Refusal(address: ipaddr.IPv4): string | undefined {
  const unnamed = ipaddr.subnetMatch(address, UNNAMED_IPV4, '');
  return unnamed !== '' ? unnamed : REFUSED_IPV4[address.range()];
}

/** The IPv4 address in bytes `from` to `from + 4` of an IPv6 address. */
const embeddedIpv4 = (address: ipaddr.IPv6, from: number): ipaddr.IPv4 =>
  new ipaddr.IPv4(address.toByteArray().slice(from, from + 4));

function ipv6Refusal(address: ipaddr.IPv6): string | undefined {
  const range = address.range();
  if (Object.hasOwn(REFUSED_IPV6, range)) return REFUSED_IPV6[range];
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d) forms reach the IPv4 address
  // itself; NAT64 (64:ff9b::/96, RFC 6052) reaches it through a translator. Each is judged as that IPv4 address.
  const ipv4Compatible = address.parts.slice(0, 6).every((part) => part === 0);
  if (range === 'ipv4Mapped' || range === 'rfc6052' || ipv4Compatible) return ipv4Refusal(embeddedIpv4(address, 12));
  // 6to4 (2002::/16, RFC 3056) carries an IPv4 address in its second and third groups.
  if (range === '6to4') return ipv4Refusal(embeddedIpv4(address, 2));
  const unnamed = ipaddr.subnetMatch(address, UNNAMED_IPV6, '');
  return unnamed !== '' ? unnamed : undefined;
}

/** ipaddr.js 1.9 reads a dotted IPv4 tail only after `::ffff:`; as two hex groups it reads every form of it. */
function withHexTail(address: string): string {
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (tail === null) return address;
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail[2] as string).octets;
  return `${tail[1]}${(a * 256 + b).toString(16)}:${(c * 256 + d).toString(16)}`;
}

/**
 * Why an address must not be fetched from (loopback, private, link-local, unspecified, CGNAT, multicast, reserved,
 * or an IPv6 form embedding one of those), or undefined for a public unicast address. Anything that is not an IP
 * address at all is refused too: only checked addresses are connected to. Node decides what an address is (four
 * decimal parts for IPv4, never `127.1`); ipaddr.js which range it is in.
 *
 * @example
 * ```ts
 * addressRefusal('::ffff:127.0.0.1'); // 'loopback'
 * addressRefusal('93.184.216.34');    // undefined
 * ```
 */
export function addressRefusal(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return ipv4Refusal(ipaddr.IPv4.parse(bare));
  if (isIPv6(bare)) return ipv6Refusal(ipaddr.IPv6.parse(withHexTail(bare.split('%')[0] as string)));
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

/** Why a URL a client named is not fetched: its host is refused (the message says why, as "its host is …"). */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
}

/** How a client's URL is resolved and which addresses are allowed. */
export interface AddressRules {
  /** Loopback and private addresses allowed (tests and local development only). */
  readonly allowPrivateAddresses: boolean;
  readonly resolve: (host: string) => Promise<string[]>;
}

/**
 * The one address to connect to for a URL a client named (its metadata document, its `jwks_uri`): every address of
 * the host must be public (unless allowed), else the fetch is refused. Any private address refuses the host: a name
 * with one public and one private address could be connected to either (happy eyeballs, round robin).
 *
 * @throws {AddressRefusedError} naming why
 */
export async function publicAddressOf(url: URL, rules: AddressRules): Promise<string> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const refuse = (why: string): never => {
    throw new AddressRefusedError(`its host is ${why}`);
  };
  const allowPrivate = rules.allowPrivateAddresses;
  if (!allowPrivate && isIP(host) === 0) {
    const why = hostNameRefusal(host);
    if (why !== undefined) refuse(why);
  }
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : await rules.resolve(host);
  } catch {
    return refuse('not resolvable');
  }
  if (!Array.isArray(addresses) || addresses.length === 0) return refuse('not resolvable');
  for (const address of addresses) {
    const why = addressRefusal(address);
    if (why === 'not an IP address' || (why !== undefined && !allowPrivate)) refuse(`${why} (${address})`);
  }
  return addresses[0] as string;
}
