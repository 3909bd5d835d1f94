import net from 'node:net';
import ipaddr from 'ipaddr.js';

// IPv4 ranges a webhook may not reach: "this network", private, shared (CGNAT), loopback, link-local, IETF protocol
// assignments, documentation, the 6to4 relay, benchmarking, multicast, reserved and broadcast.
const PRIVATE_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// IPv6 ranges refused whole: IPv4-compatible (with :: and ::1), the local-use NAT64 prefix, discard-only, Teredo,
// benchmarking, ORCHID, documentation, unique local, link-local, the old site-local and multicast. The prefixes that
// embed an IPv4 address worth reaching (mapped, translated, NAT64, 6to4) are judged by that address instead.
const PRIVATE_V6: readonly [string, number][] = [
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:10::', 28],
  ['2001:20::', 28],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

/** A parsed address, IPv4 or IPv6. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** An address range as ipaddr.js matches it: its first address and the length of its prefix. */
export type IpRange = [IpAddress, number];

const parseRanges = (ranges: readonly [string, number][]): IpRange[] =>
  ranges.map(([prefix, bits]) => [ipaddr.parse(prefix), bits]);
const REFUSED_V4 = parseRanges(PRIVATE_V4);
const REFUSED_V6 = parseRanges(PRIVATE_V6);

/** True when a range of `ranges` holds `address`; ranges of the other family never do. */
export function inRanges(address: IpAddress, ranges: readonly IpRange[]): boolean {
  return ranges.some((range) => range[0].kind() === address.kind() && address.match(range));
}

const dottedQuad = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/** The IPv4 address an IPv6 address stands for (mapped, SIIT-translated, NAT64 or 6to4), or undefined. */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipaddr.IPv6.parse(address).parts;
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated, RFC 2765).
  if (zeros(0, 5) && g[5] === 0xffff) return dottedQuad(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dottedQuad(g[6]!, g[7]!);
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix (RFC 6052).
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dottedQuad(g[6]!, g[7]!);
  // 2002:AABB:CCDD::/48, 6to4 (RFC 3056): the site's IPv4 address follows the prefix.
  if (g[0] === 0x2002) return dottedQuad(g[1]!, g[2]!);
  return undefined;
}

/**
 * True for an IP address a webhook must not reach by default: loopback, private, link-local, unspecified,
 * multicast, CGNAT, reserved, and every IPv6 form that carries one of those (mapped, compatible, NAT64, 6to4,
 * Teredo). A host name (not an address) answers false: it is judged by what it resolves to.
 */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return inRanges(ipaddr.IPv4.parse(address), REFUSED_V4);
  if (family !== 6) return false;
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return inRanges(ipaddr.IPv4.parse(inner), REFUSED_V4);
  return inRanges(ipaddr.IPv6.parse(address), REFUSED_V6);
}

/** The bare address of a URL's host: brackets off an IPv6 literal; a host name is returned as it is. */
export function hostAddress(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** True for `localhost` and its subdomains, which resolve to loopback by definition (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  return /(^|\.)localhost\.?$/i.test(hostname);
}
