/** The server's live event stream (`GET /api/events`) through the browser's EventSource. */
import { EVENT_TYPES } from '../../../src/events/event-names.ts';
import type { VitrineEvent } from '../../../src/events/event-types.ts';
import { withQuery } from './http.ts';
import { getToken } from './token.ts';

/** An event as the stream delivers it. */
export type ServerEvent = VitrineEvent;

/** What a subscription reports. */
export interface EventHandlers {
  onEvent: (event: ServerEvent) => void;
  /** The stream is open (again): events from now on arrive, so state read now is current. */
  onOpen?: () => void;
  /** The stream cannot be used (refused, or no stream at this server); the caller falls back to reading. */
  onUnavailable?: () => void;
}

/**
 * Listens to the stream, optionally about one model; returns a function that closes it. EventSource cannot send
 * headers, so the token travels as the `token` query parameter, which the server accepts on this route only. A
 * dropped connection reconnects on its own and resumes after the last event (Last-Event-ID).
 */
export function subscribeEvents(filter: { modelId?: string }, handlers: EventHandlers): () => void {
  const source = new EventSource(
    withQuery('/api/events', { token: getToken() ?? '', model_id: filter.modelId }),
  );
  let closed = false;
  const receive = (message: MessageEvent<string>): void => {
    if (!closed) handlers.onEvent(JSON.parse(message.data) as ServerEvent);
  };
  for (const name of EVENT_TYPES) source.addEventListener(name, receive);
  source.addEventListener('open', () => {
    if (!closed) handlers.onOpen?.();
  });
  source.addEventListener('error', () => {
    // CONNECTING means the browser is retrying by itself; CLOSED means it gave up (a 401, or not a stream).
    if (source.readyState !== EventSource.CLOSED || closed) return;
    closed = true;
    handlers.onUnavailable?.();
  });
  return () => {
    closed = true;
    source.close();
  };
}
