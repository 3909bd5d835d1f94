import type { VitrineEvent } from '../../src/events/event-types.ts';

/** A live connection to `GET /api/events`, collecting what it receives. */
export interface EventClient {
  /** Status of the answer. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The body of an answer that is not a stream (an error). */
  body: string;
  /** Every event received so far, in order. */
  events: VitrineEvent[];
  /** Resolves with the first received event matching `match`, failing after `timeoutMs` with what did arrive. */
  waitFor(match: (event: VitrineEvent) => boolean, timeoutMs?: number): Promise<VitrineEvent>;
  close(): void;
}

/**
 * Opens the event stream over real HTTP (server-sent events do not fit `inject`) and parses its frames, checking
 * that each frame's `id` and `event` lines agree with its JSON.
 */
export async function openEventClient(
  url: string,
  headers: Record<string, string> = {},
): Promise<EventClient> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: VitrineEvent[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  let failure: Error | undefined;
  const streaming = response.ok && response.headers.get('content-type')?.startsWith('text/event-stream');
  const body = streaming ? '' : await response.text();
  if (streaming && response.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let text = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          text += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = text.indexOf('\n\n')) >= 0) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            const fields = new Map<string, string>();
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ''));
            }
            if (!fields.has('data')) continue;
            const event = JSON.parse(fields.get('data')!) as VitrineEvent;
            if (fields.get('id') !== String(event.id) || fields.get('event') !== event.type) {
              failure = new Error(`a frame whose lines disagree with its data: ${block}`);
            }
            events.push(event);
            for (const wake of waiters) wake();
          }
        }
      } catch (error) {
        if (!controller.signal.aborted) failure = error as Error;
      } finally {
        ended = true;
        for (const wake of waiters) wake();
      }
    })();
  }
  return {
    status: response.status,
    headers: response.headers,
    body,
    events,
    async waitFor(match, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (failure) throw failure;
        const found = events.find(match);
        if (found) return found;
        if (ended) throw new Error(`the stream ended; received ${JSON.stringify(events.map((e) => e.type))}`);
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(`no matching event within ${timeoutMs} ms; received ${JSON.stringify(events)}`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    close() {
      controller.abort();
    },
  };
}
