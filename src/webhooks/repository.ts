import { randomUUID } from 'node:crypto';
import type { Db, WebhookDeliveryRow, WebhookRow } from '../db/database.ts';
import { nowIso, toIso } from '../db/timestamps.ts';
import type { EventType } from '../events/event-types.ts';
import type { Delivery, Webhook } from './schemas.ts';

/** The webhooks' data access: the only code that queries `webhooks` and `webhook_deliveries`. */
export type WebhookRepository = ReturnType<typeof createWebhookRepository>;

/** A webhook with the secret its deliveries are signed with (never sent to clients after creation). */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

/** How much of the delivery log is kept: pending deliveries always, settled ones within both limits. */
export interface DeliveryRetention {
  /** Newest deliveries kept per webhook (`WEBHOOK_DELIVERY_LOG_KEEP`). */
  keepPerWebhook: number;
  /** Settled deliveries older than this go (`WEBHOOK_DELIVERY_LOG_DAYS`). */
  maxAgeMs: number;
}

/** What a delivery attempt records. */
export interface AttemptOutcome {
  status: Delivery['status'];
  last_status_code: number | null;
  last_error: string | null;
}

const toWebhook = (row: WebhookRow): WebhookWithSecret => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as EventType[],
  secret: row.secret,
  created_at: toIso(row.created_at),
});

const withoutSecret = ({ secret: _secret, ...webhook }: WebhookWithSecret): Webhook => webhook;

const toDelivery = (row: WebhookDeliveryRow): Delivery => ({
  id: Number(row.id),
  webhook_id: row.webhook_id,
  event_id: Number(row.event_id),
  event_type: row.event_type as EventType,
  status: row.status as Delivery['status'],
  attempts: row.attempts,
  last_status_code: row.last_status_code,
  last_error: row.last_error,
  created_at: toIso(row.created_at),
  updated_at: toIso(row.updated_at),
});

/** Creates the repository over an open database or a transaction. */
export function createWebhookRepository({ db }: { db: Db }) {
  return {
    /** Stores a webhook; the secret is returned here and never listed again. */
    async create(input: { url: string; events: EventType[]; secret: string }): Promise<WebhookWithSecret> {
      const row = await db
        .insertInto('webhooks')
        .values({
          id: randomUUID(),
          url: input.url,
          events: JSON.stringify(input.events),
          secret: input.secret,
          created_at: nowIso(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toWebhook(row);
    },

    /** Every webhook, oldest first, without secrets. */
    async list(): Promise<Webhook[]> {
      const rows = await db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map((row) => withoutSecret(toWebhook(row)));
    },

    /** One webhook without its secret, or undefined. */
    async get(id: string): Promise<Webhook | undefined> {
      const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
      return row && withoutSecret(toWebhook(row));
    },

    /** One webhook with its secret, for signing; undefined when deleted. */
    async getForDelivery(id: string): Promise<WebhookWithSecret | undefined> {
      const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toWebhook(row);
    },

    /** The webhooks that want events of this type. */
    async subscribedTo(type: EventType): Promise<Webhook[]> {
      const rows = await db.selectFrom('webhooks').selectAll().orderBy('created_at').execute();
      return rows.map((row) => withoutSecret(toWebhook(row))).filter((hook) => hook.events.includes(type));
    },

    /** Deletes a webhook and its delivery log; false when there was none. */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Records a delivery waiting to be posted. */
    async createDelivery(input: {
      webhook_id: string;
      event_id: number;
      event_type: EventType;
      body: string;
    }): Promise<Delivery> {
      const now = nowIso();
      const row = await db
        .insertInto('webhook_deliveries')
        .values({ ...input, status: 'pending', attempts: 0, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toDelivery(row);
    },

    /** One delivery with the body it posts, or undefined. */
    async getDelivery(id: number): Promise<(Delivery & { body: string }) | undefined> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && { ...toDelivery(row), body: row.body };
    },

    /** A webhook's deliveries, newest first, with the count of all. */
    async deliveries(
      webhookId: string,
      page: { limit: number; offset: number },
    ): Promise<{ rows: Delivery[]; total: number }> {
      const base = db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      ]);
      return { rows: rows.map(toDelivery), total: Number(count.total) };
    },

    /** Counts one more attempt and its outcome. */
    async recordAttempt(id: number, outcome: AttemptOutcome): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ ...outcome, attempts: eb('attempts', '+', 1), updated_at: nowIso() }))
        .where('id', '=', id)
        .execute();
    },

    /**
     * Deletes settled (delivered or failed) deliveries that are older than the retention's age or outside the
     * newest `keepPerWebhook` of their webhook; a pending one stays, its job still needs it. Returns how many.
     */
    async prune(retention: DeliveryRetention): Promise<number> {
      const cutoff = new Date(Date.now() - retention.maxAgeMs).toISOString();
      const old = await db
        .deleteFrom('webhook_deliveries')
        .where('status', '<>', 'pending')
        .where('created_at', '<', cutoff)
        .executeTakeFirst();
      let removed = Number(old.numDeletedRows);
      const hooks = await db.selectFrom('webhooks').select('id').execute();
      for (const { id } of hooks) {
        // The newest delivery past the kept ones: it and everything older may go.
        const boundary = await db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('webhook_id', '=', id)
          .orderBy('id', 'desc')
          .limit(1)
          .offset(retention.keepPerWebhook)
          .executeTakeFirst();
        if (!boundary) continue;
        const beyond = await db
          .deleteFrom('webhook_deliveries')
          .where('webhook_id', '=', id)
          .where('id', '<=', boundary.id)
          .where('status', '<>', 'pending')
          .executeTakeFirst();
        removed += Number(beyond.numDeletedRows);
      }
      return removed;
    },

    /** Marks a delivery failed for good, keeping its last outcome. */
    async markFailed(id: number, error: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', last_error: error, updated_at: nowIso() })
        .where('id', '=', id)
        .execute();
    },
  };
}
