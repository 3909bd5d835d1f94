import net from 'node:net';
import { embeddedIpv4, isPrivateAddress } from './private-address.ts';

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
  const [address = '', bits, extra] = text.trim().split('/');
  const family = net.isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!/^\d+$/.test(bits ?? String(max)) || prefix > max) return undefined;
  return { address, prefix, type: family === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * The guard of every delivery and webhook creation. With `refusePrivate` off it refuses nothing (a receiver on the
 * same machine or network, for local use); on, it refuses {@link isPrivateAddress} unless an allowed range covers
 * the address (or the IPv4 address it embeds).
 */
export function createAddressGuard(options: AddressGuardOptions): AddressGuard {
  const allowed = new net.BlockList();
  for (const text of options.allowedRanges) {
    const range = parseAddressRange(text);
    if (!range) throw new Error(`"${text}" is not an IP address or CIDR range`);
    allowed.addSubnet(range.address, range.prefix, range.type);
  }
  const isAllowed = (address: string): boolean => {
    const family = net.isIP(address);
    if (allowed.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
    const inner = family === 6 ? embeddedIpv4(address) : undefined;
    return inner !== undefined && allowed.check(inner, 'ipv4');
  };
  return {
    refuses: (address) => options.refusePrivate && isPrivateAddress(address) && !isAllowed(address),
  };
}
