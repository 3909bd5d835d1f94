import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressGuard } from './address-guard.ts';

/** Resolves a host name to every address it has (`family` 0 for both); the system resolver unless replaced. */
export type ResolveHost = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

/** The system resolver (`getaddrinfo`, so `/etc/hosts` counts), asked for every address. */
export const systemResolve: ResolveHost = (hostname, family) =>
  dns.promises.lookup(hostname, { all: true, family });

/** A receiver that may not be reached; retrying will not change that. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
}

/** Message of a refused receiver. */
export const PRIVATE_ADDRESS_MESSAGE =
  'the receiver has a private address, which WEBHOOK_REFUSE_PRIVATE_ADDRESSES refuses';

/**
 * A `lookup` for `http.request` that resolves a host name, then refuses it when any of its addresses is refused by
 * the guard: checked on the addresses connected to, so a name that resolves differently later (DNS rebinding) is
 * caught too, and a name with one private address among public ones is refused rather than tried in turn. Follows
 * Node's contract: with `all: true` (Node 20 asks so, to try IPv6 and IPv4 in turn) it answers an array of
 * `{ address, family }`, otherwise one address and its family.
 */
export function guardedLookup(guard: AddressGuard, resolve: ResolveHost = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    resolve(hostname, family).then(
      (addresses) => {
        const refused = addresses.find((each) => guard.refuses(each.address));
        if (refused) {
          callback(
            new RefusedAddressError(`${hostname} is ${refused.address}: ${PRIVATE_ADDRESS_MESSAGE}`),
            '',
            0,
          );
        } else if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0]!.address, addresses[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
