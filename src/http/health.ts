import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { BlobStore } from '../storage/blob-store.ts';

/** What `/health` checks, and how long it waits for an answer. */
export interface HealthOptions {
  db: Db;
  /** The job queue; its server (Redis) is checked when it has one of its own. */
  queue: Pick<JobQueue, 'ping'>;
  /** Where files are stored (local folder or S3 bucket). */
  blobs: Pick<BlobStore, 'head'>;
  /** A check that has not answered within this fails (`DATABASE_CONNECT_TIMEOUT_SECONDS`). */
  timeoutMs: number;
}

/** The parts of the service `/health` checks, in the order a failure lists them. */
const DEPENDENCIES = ['database', 'queue', 'storage'] as const;
type Dependency = (typeof DEPENDENCIES)[number];

/** A key no stored file has: asking the store about it costs one small request and touches nothing. */
const PROBE_KEY = 'health/probe';

/** The answer while every dependency answers: the body the material service's contract shows. */
const HealthyBody = Type.Object({ status: Type.Literal('ok') });

/** The answer while a dependency does not: the same `status` field, and which dependencies failed. */
const UnhealthyBody = Type.Object({
  status: Type.Literal('unavailable'),
  failed: Type.Array(Type.Union(DEPENDENCIES.map((name) => Type.Literal(name))), {
    description: 'The dependencies that did not answer: database, queue (Redis), storage (files or S3)',
  }),
});

/**
 * `GET /health`, no token: 200 `{"status":"ok"}` when the database answers a trivial query, the job queue's Redis
 * (when configured) a PING and the file store a lookup, each within `timeoutMs`; else 503
 * `{"status":"unavailable","failed":[…]}` naming what did not answer, so a balancer or orchestrator takes the
 * process out of service instead of sending it requests that would all answer 503, and its operator knows where
 * to look.
 */
export function registerHealth(app: FastifyInstance, options: HealthOptions): void {
  const checks: Record<Dependency, () => Promise<unknown>> = {
    database: () => sql`select 1`.execute(options.db),
    queue: async () => options.queue.ping?.(),
    storage: () => options.blobs.head(PROBE_KEY),
  };
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Health check (no token): 503 naming the dependencies that do not answer',
        security: [],
        response: { 200: HealthyBody, 503: UnhealthyBody },
      },
    },
    async (_request, reply) => {
      const answered = await Promise.all(
        DEPENDENCIES.map((name) => answers(() => checks[name](), options.timeoutMs)),
      );
      const failed = DEPENDENCIES.filter((_name, index) => !answered[index]);
      if (failed.length === 0) return { status: 'ok' as const };
      return reply.code(503).send({ status: 'unavailable' as const, failed });
    },
  );
}

/** Whether a check settles successfully within `timeoutMs`. */
async function answers(check: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([check().then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
