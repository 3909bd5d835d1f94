import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { scopeOf } from '../http/auth/request-scope.ts';
import { CatalogErrorSchema, CATALOG_FAMILY } from '../http/catalog-family.ts';
import { MAX_ROW_ID } from '../db/integer-bounds.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import { TOKEN_HEADER, type TokenChecker } from '../http/auth/token-checker.ts';
import type { EventHub } from './event-hub.ts';
import type { EventLog } from './event-log.ts';
import type { EventStreams } from './event-stream.ts';
import { EVENT_TYPES } from './event-types.ts';

/** What the event stream route needs from the app. */
export interface EventRoutesOptions {
  checkToken: TokenChecker;
  hub: EventHub;
  log: EventLog;
  streams: EventStreams;
  /** The connection idle timeout; heartbeats come well within it. */
  idleTimeoutMs: number;
}

/**
 * How a stream learns that its token was revoked, deleted or expired: the same check a new request gets. The admin
 * token is fixed for the life of the process, so its streams are not rechecked.
 */
function stillAllowedCheck(
  request: FastifyRequest,
  checkToken: TokenChecker,
  presented: string | string[] | undefined,
): (() => Promise<boolean>) | undefined {
  if (scopeOf(request) === 'admin') return undefined;
  return async () => {
    const result = await checkToken(presented);
    return result !== 'missing' && result !== 'invalid';
  };
}

/** Query of `GET /api/events`. */
export const EventStreamQuery = Type.Object({
  model_id: Type.Optional(
    Type.String({
      format: 'uuid',
      'x-error-message': 'Invalid model id',
      description: 'Only events about this model.',
    }),
  ),
  token: Type.Optional(
    Type.String({
      description:
        "The API token, for clients that cannot send headers (the browser's EventSource); `X-API-Token` is preferred.",
    }),
  ),
  last_event_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_ROW_ID,
      description:
        'Replay the events after this id first; the `Last-Event-ID` header does the same and wins.',
    }),
  ),
});

const STREAM_DESCRIPTION = `Server-sent events, one per change: ${EVENT_TYPES.join(', ')}. Each has an \`id\` (send it back as \`Last-Event-ID\` to replay what was missed, within the last 1,000 events or hour), an \`event\` naming the type and a \`data\` line holding the event as JSON ({id, type, created_at, data}).`;

/** `GET /api/events`: the live stream of model changes, in the catalog's error envelope. */
export const eventRoutes: FastifyPluginAsync<EventRoutesOptions> = async (fastify, options) => {
  // EventSource cannot send headers; this route alone also takes the token from the query.
  const presentedToken = (request: FastifyRequest) =>
    request.headers[TOKEN_HEADER] ?? (request.query as { token?: string } | undefined)?.token;
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    presentedToken,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const heartbeatMs = Math.min(15_000, Math.floor(options.idleTimeoutMs / 2));

  app.get(
    '/',
    {
      schema: {
        operationId: 'streamEvents',
        tags: ['events'],
        summary: 'Live stream of model, thumbnail and binding changes (server-sent events)',
        description: STREAM_DESCRIPTION,
        querystring: EventStreamQuery,
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ description: 'The id of the last event received.' })),
        }),
        response: {
          200: {
            description: STREAM_DESCRIPTION,
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          400: CatalogErrorSchema,
          401: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const header = request.headers['last-event-id'];
      let lastEventId = request.query.last_event_id;
      if (header !== undefined && header !== '') {
        if (!/^\d{1,15}$/.test(header)) throw new ApiError(400, 'Last-Event-ID must be an event id');
        lastEventId = Number(header);
      }
      await options.streams.open(request, reply, {
        hub: options.hub,
        log: options.log,
        modelId: request.query.model_id,
        lastEventId,
        heartbeatMs,
        stillAllowed: stillAllowedCheck(request, options.checkToken, presentedToken(request)),
      });
    },
  );
};
