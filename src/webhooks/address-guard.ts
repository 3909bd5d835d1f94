import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { embeddedIpv4, inRanges, isPrivateAddress, type IpRange } from './private-address.ts';

/** Decides which IP addresses webhook deliveries may connect to. */
export interface AddressGuard {
  /** True when a delivery must not connect to this IP address. */
  refuses(address: string): boolean;
}

/** How the guard is set up. */
export interface AddressGuardOptions {
  /** `WEBHOOK_REFUSE_PRIVATE_ADDRESSES`: refuse private, loopback, link-local and similar addresses. */
  refusePrivate: boolean;
  /** `WEBHOOK_ALLOWED_PRIVATE_RANGES`: addresses or CIDR ranges reachable even though they are private. */
  allowedRanges: readonly string[];
}

/** One parsed entry of `WEBHOOK_ALLOWED_PRIVATE_RANGES`. */
export interface AddressRange {
  address: string;
  prefix: number;
  type: 'ipv4' | 'ipv6';
}

/** Parses `10.0.0.0/8`, `fd00::/8` or a bare address (a range of one); undefined when it is neither. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const trimmed = text.trim();
  // Four-part decimal only: ipaddr.js would also read `10.1` or `0xa.0.0.1`, which no one means in a range.
  const range = ipaddr.IPv4.isValidCIDRFourPartDecimal(trimmed)
    ? ipaddr.IPv4.parseCIDR(trimmed)
    : ipaddr.IPv6.isValidCIDR(trimmed)
      ? ipaddr.IPv6.parseCIDR(trimmed)
      : singleAddress(trimmed);
  if (!range || ('zoneId' in range[0] && range[0].zoneId !== undefined)) return undefined;
  return { address: range[0].toString(), prefix: range[1], type: range[0].kind() };
}

/** A bare address as the range that holds only it. */
function singleAddress(text: string): IpRange | undefined {
  const family = net.isIP(text);
  if (family === 4) return [ipaddr.IPv4.parse(text), 32];
  if (family === 6) return [ipaddr.IPv6.parse(text), 128];
  return undefined;
}

/**
 * The guard of every delivery and webhook creation. With `refusePrivate` off it refuses nothing (a receiver on the
 * same machine or network, for local use); on, it refuses {@link isPrivateAddress} unless an allowed range covers
 * the address (or the IPv4 address it embeds).
 */
export function createAddressGuard(options: AddressGuardOptions): AddressGuard {
  const allowed: IpRange[] = options.allowedRanges.map((text) => {
    const range = parseAddressRange(text);
    if (!range) throw new Error(`"${text}" is not an IP address or CIDR range`);
    return [ipaddr.parse(range.address), range.prefix];
  });
  const isAllowed = (address: string): boolean => {
    if (inRanges(ipaddr.parse(address), allowed)) return true;
    const inner = net.isIPv6(address) ? embeddedIpv4(address) : undefined;
    return inner !== undefined && inRanges(ipaddr.parse(inner), allowed);
  };
  return {
    refuses: (address) => options.refusePrivate && isPrivateAddress(address) && !isAllowed(address),
  };
}
