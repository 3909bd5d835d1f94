import { ApiError } from '../http/api-error.ts';
import { EVENT_TYPES, isEventType, type EventType } from '../events/event-types.ts';
import { isPrivateAddress } from './private-address.ts';
import { PRIVATE_ADDRESS_MESSAGE } from './post-webhook.ts';

/**
 * Checks a webhook's URL and event names, answering a 400 that names the bad one. With `refusePrivate`, a URL
 * whose host is a private address is refused here already; a name that resolves to one is refused on delivery.
 */
export function checkWebhook(
  url: string,
  events: readonly string[],
  refusePrivate: boolean,
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
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (refusePrivate && (isPrivateAddress(host) || host === 'localhost')) {
    throw new ApiError(400, `url "${url}" is refused: ${PRIVATE_ADDRESS_MESSAGE}`);
  }
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
