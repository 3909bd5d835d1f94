import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventHub } from './event-hub.ts';
import type { EventLog } from './event-log.ts';
import { concernsModel, type VitrineEvent } from './event-types.ts';

/** What one stream sends. */
export interface EventStreamOptions {
  hub: EventHub;
  log: EventLog;
  /** Only events about this model. */
  modelId?: string;
  /** Replay the events after this id before the live ones. */
  lastEventId?: number;
  /** A comment line is sent this often so proxies and idle timeouts keep the connection. */
  heartbeatMs: number;
  /**
   * Whether the credential that opened the stream still holds (a token not revoked, deleted or expired); the
   * stream ends when it answers false. Omitted, the stream is never rechecked.
   */
  stillAllowed?: () => boolean | Promise<boolean>;
}

/** Open streams, so a shutting-down app can end them instead of waiting for clients that never leave. */
export interface EventStreams {
  /** Sends events on a hijacked reply until the client leaves or {@link EventStreams.endAll} runs. */
  open(request: FastifyRequest, reply: FastifyReply, options: EventStreamOptions): Promise<void>;
  /**
   * Asks every open stream's {@link EventStreamOptions.stillAllowed} and ends those it refuses. It runs every
   * `recheckMs` by itself and is also called at once by a revocation in this process.
   */
  recheck(): Promise<void>;
  /** Ends every open stream and stops the periodic recheck. */
  endAll(): void;
}

/** Tuning of the stream registry. */
export interface EventStreamsOptions {
  /** How often every open stream's credential is checked again. */
  recheckMs: number;
  /** Where a failed recheck (the database away) is reported; the stream stays open until a check says no. */
  onRecheckError?: (error: unknown) => void;
}

// A client this far behind is cut off; it reconnects with Last-Event-ID and reads the rest from the log.
const MAX_BUFFERED_BYTES = 1024 * 1024;
// Tells EventSource how soon to reconnect after the connection drops.
const RETRY_MS = 2_000;
const REPLAY_BATCH = 500;

/** One SSE frame. */
function frame(event: VitrineEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Creates the registry of open streams. */
export function createEventStreams(settings: EventStreamsOptions): EventStreams {
  // Each open stream's `end`, with the check that may end it early.
  const open = new Map<() => void, EventStreamOptions['stillAllowed']>();
  let timer: NodeJS.Timeout | undefined;
  const recheck = async (): Promise<void> => {
    await Promise.all(
      [...open].map(async ([end, stillAllowed]) => {
        if (!stillAllowed) return;
        try {
          if (!(await stillAllowed())) end();
        } catch (error) {
          settings.onRecheckError?.(error);
        }
      }),
    );
  };
  const startTimer = (): void => {
    if (timer) return;
    timer = setInterval(() => void recheck(), settings.recheckMs);
    // A quiet registry must not keep a process alive that is otherwise done.
    timer.unref();
  };
  return {
    async open(request, reply, options) {
      const { hub, log, modelId } = options;
      const startedAt = await hub.start();
      let lastSent = options.lastEventId ?? startedAt;
      let live = false;
      let ended = false;
      const held: VitrineEvent[] = [];
      const raw = reply.raw;

      const send = (events: VitrineEvent[]): void => {
        let text = '';
        for (const event of events) {
          if (event.id <= lastSent) continue;
          lastSent = event.id;
          if (modelId === undefined || concernsModel(event, modelId)) text += frame(event);
        }
        if (text === '' || ended || raw.destroyed) return;
        raw.write(text);
        if (raw.writableLength > MAX_BUFFERED_BYTES) end();
      };
      // Events that arrive while the missed ones are replayed wait, so the client sees ids in order.
      const unsubscribe = hub.subscribe((events) => (live ? send(events) : held.push(...events)));
      const heartbeat = setInterval(() => raw.write(': ping\n\n'), options.heartbeatMs);
      const end = (): void => {
        ended = true;
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(end);
        if (open.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
        if (!raw.destroyed) raw.end();
      };
      open.set(end, options.stillAllowed);
      startTimer();
      raw.on('close', end);

      reply.hijack();
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-content-type-options': 'nosniff',
        // Tells nginx not to buffer the stream.
        'x-accel-buffering': 'no',
      });
      raw.write(`retry: ${RETRY_MS}\n\n`);
      try {
        if (options.lastEventId !== undefined) {
          for (;;) {
            const missed = await log.after(lastSent, REPLAY_BATCH);
            send(missed);
            if (missed.length < REPLAY_BATCH || raw.destroyed) break;
          }
        }
      } catch (error) {
        request.log.warn({ err: error }, 'could not replay missed events');
        end();
        return;
      }
      live = true;
      send(held.splice(0));
    },
    recheck,
    endAll() {
      for (const end of [...open.keys()]) end();
      clearInterval(timer);
      timer = undefined;
    },
  };
}
