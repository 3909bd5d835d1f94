import net from 'node:net';
import { ApiError } from '../http/api-error.ts';
import { EVENT_TYPES, isEventType, type EventType } from '../events/event-types.ts';
import type { AddressGuard } from './address-guard.ts';
import { PRIVATE_ADDRESS_MESSAGE } from './guarded-lookup.ts';
import { hostAddress, isLocalhostName } from './private-address.ts';

/**
 * Checks a webhook's URL and event names, answering a 400 that names the bad one. A URL whose host is an address
 * the guard refuses (in any spelling: the WHATWG parser turns `0177.0.0.1`, `2130706433` or `127.1` into
 * `127.0.0.1`), or `localhost`, is refused here already; a host name is judged by its addresses on each delivery.
 */
export function checkWebhook(
  url: string,
  events: readonly string[],
  guard: AddressGuard,
): { url: string; events: EventType[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError(400, `url "${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ApiError(400, `url "${url}" must be an http:// or https:// URL`);
  }
  const host = hostAddress(parsed.hostname);
  const refused =
    net.isIP(host) !== 0 ? guard.refuses(host) : isLocalhostName(host) && guard.refuses('127.0.0.1');
  if (refused) throw new ApiError(400, `url "${url}" is refused: ${PRIVATE_ADDRESS_MESSAGE}`);
  const wanted = new Set<EventType>();
  events.forEach((name, index) => {
    if (!isEventType(name)) {
      throw new ApiError(
        400,
        `events[${index}] "${name}" is not an event type; use ${EVENT_TYPES.join(', ')}`,
      );
    }
    wanted.add(name);
  });
  return { url: parsed.toString(), events: EVENT_TYPES.filter((type) => wanted.has(type)) };
}
