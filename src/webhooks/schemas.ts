import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from '../events/event-types.ts';
import { MAX_ROW_ID } from '../db/integer-bounds.ts';

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A webhook as listed: never its secret. */
export const WebhookSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES] })),
  created_at: Type.String({ format: 'date-time' }),
});
/** A webhook on the wire. */
export type Webhook = Static<typeof WebhookSchema>;

/** A webhook just created: the only answer that carries its secret. */
export const CreatedWebhookSchema = Type.Intersect([
  WebhookSchema,
  Type.Object({
    secret: Type.String({ description: 'The signing secret; shown in this answer only.' }),
  }),
]);

/** Body of `POST /api/webhooks`. */
export const CreateWebhookBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    description: 'An http:// or https:// URL.',
  }),
  events: Type.Array(Type.String({ maxLength: 100 }), {
    minItems: 1,
    maxItems: EVENT_TYPES.length,
    description: `Event types to deliver: ${EVENT_TYPES.join(', ')}.`,
  }),
  secret: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 256,
      description: 'The HMAC key (16 to 256 characters); one is generated when absent.',
    }),
  ),
});

/** The delivery states. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One event posted (or being posted) to a webhook. */
export const DeliverySchema = Type.Object({
  id: Type.Integer(),
  webhook_id: Type.String({ format: 'uuid' }),
  event_id: Type.Integer(),
  event_type: Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES] }),
  status: Type.Unsafe<(typeof DELIVERY_STATUSES)[number]>({ type: 'string', enum: [...DELIVERY_STATUSES] }),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's last HTTP status; null when it never answered.",
  }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
/** A delivery on the wire. */
export type Delivery = Static<typeof DeliverySchema>;

/** `:id` of `/api/webhooks/:id…`. */
export const WebhookIdParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid webhook id' }),
});

/** `:id/deliveries/:delivery_id/redeliver`. */
export const DeliveryParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid webhook id' }),
  delivery_id: Type.Integer({ minimum: 1, maximum: MAX_ROW_ID, 'x-error-message': 'Invalid delivery id' }),
});

/** Paging of the delivery log. */
export const ListDeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID, default: 0 })),
});
