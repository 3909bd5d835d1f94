import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { newSecret } from '../http/auth/secrets.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  CATALOG_FAMILY,
} from '../http/catalog-family.ts';
import type { Db } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AddressGuard } from './address-guard.ts';
import { checkWebhook } from './check-webhook.ts';
import { queueDelivery, webhookSubject } from './fan-out.ts';
import { createWebhookRepository } from './repository.ts';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliveryParams,
  DeliverySchema,
  ListDeliveriesQuery,
  WebhookIdParams,
  WebhookSchema,
} from './schemas.ts';

/** What the webhook routes need from the app. */
export interface WebhookRoutesOptions {
  db: Db;
  queue: JobQueue;
  checkToken: TokenChecker;
  /** Which receiver addresses are refused at creation. */
  guard: AddressGuard;
}

const tags = ['webhooks'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  403: CatalogErrorSchema,
  404: CatalogErrorSchema,
};
const NOT_FOUND = 'Webhook not found';

/**
 * Webhooks at `/api/webhooks` in the catalog's envelope. Reading needs any token; creating, deleting and
 * redelivering need a write or the admin token (the access check refuses read tokens).
 */
export const webhookRoutes: FastifyPluginAsync<WebhookRoutesOptions> = async (fastify, options) => {
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, queue } = options;
  const webhooks = createWebhookRepository({ db });
  const existing = async (id: string) => {
    const hook = await webhooks.get(id);
    if (!hook) throw new ApiError(404, NOT_FOUND);
    return hook;
  };

  app.post(
    '/',
    {
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Register a URL to receive signed events; its secret is shown in this answer only',
        body: CreateWebhookBody,
        response: { 201: catalogEnvelope(CreatedWebhookSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { url, events } = checkWebhook(request.body.url, request.body.events, options.guard);
      const secret = request.body.secret ?? newSecret('whsec_');
      const created = await webhooks.create({ url, events, secret });
      return reply.code(201).send({ success: true as const, data: created });
    },
  );

  app.get(
    '/',
    {
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'List the webhooks, oldest first, without their secrets',
        response: { 200: catalogEnvelope(Type.Array(WebhookSchema)), ...errors },
      },
    },
    async () => ({ success: true as const, data: await webhooks.list() }),
  );

  app.get(
    '/:id',
    {
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'Read a webhook, without its secret',
        params: WebhookIdParams,
        response: { 200: catalogEnvelope(WebhookSchema), ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await existing(request.params.id) }),
  );

  app.delete(
    '/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook with its delivery log; nothing more is sent to it',
        params: WebhookIdParams,
        response: { 200: CatalogMessageSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const deleted = await db.transaction().execute(async (trx) => {
        await queue.cancelQueued(webhookSubject(id), { transaction: trx });
        return createWebhookRepository({ db: trx }).delete(id);
      });
      if (!deleted) throw new ApiError(404, NOT_FOUND);
      return { success: true as const, message: 'Webhook deleted' };
    },
  );

  app.get(
    '/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "A webhook's deliveries, newest first: status, attempts and the receiver's last answer",
        params: WebhookIdParams,
        querystring: ListDeliveriesQuery,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Array(DeliverySchema),
            meta: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      await existing(request.params.id);
      const limit = request.query.limit ?? 20;
      const offset = request.query.offset ?? 0;
      const { rows, total } = await webhooks.deliveries(request.params.id, { limit, offset });
      return { success: true as const, data: rows, meta: { total, limit, offset } };
    },
  );

  app.post(
    '/:id/deliveries/:delivery_id/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags,
        summary: 'Send a delivery again as a new delivery with the same body, freshly signed',
        params: DeliveryParams,
        response: { 202: catalogEnvelope(DeliverySchema), ...errors },
      },
    },
    async (request, reply) => {
      const { id, delivery_id: deliveryId } = request.params;
      const original = await webhooks.getDelivery(deliveryId);
      if (!original || original.webhook_id !== id) throw new ApiError(404, 'Delivery not found');
      const { delivery, jobId } = await db.transaction().execute((trx) =>
        queueDelivery(trx, queue, {
          webhook_id: id,
          event_id: original.event_id,
          event_type: original.event_type,
          body: original.body,
        }),
      );
      await queue.promote(jobId);
      return reply.code(202).send({ success: true as const, data: delivery });
    },
  );
};
