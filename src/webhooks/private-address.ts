import net from 'node:net';

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

const blockList = (ranges: readonly [string, number][], type: 'ipv4' | 'ipv6'): net.BlockList => {
  const list = new net.BlockList();
  for (const [prefix, bits] of ranges) list.addSubnet(prefix, bits, type);
  return list;
};
const REFUSED_V4 = blockList(PRIVATE_V4, 'ipv4');
const REFUSED_V6 = blockList(PRIVATE_V6, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined
    ? front
    : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const dottedQuad = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/** The IPv4 address an IPv6 address stands for (mapped, SIIT-translated, NAT64 or 6to4), or undefined. */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
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
  if (family === 4) return REFUSED_V4.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return REFUSED_V4.check(inner, 'ipv4');
  return REFUSED_V6.check(address, 'ipv6');
}

/** The bare address of a URL's host: brackets off an IPv6 literal; a host name is returned as it is. */
export function hostAddress(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** True for `localhost` and its subdomains, which resolve to loopback by definition (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  return /(^|\.)localhost\.?$/i.test(hostname);
}
