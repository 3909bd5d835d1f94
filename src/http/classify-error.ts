import type { FastifyError } from 'fastify';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from '../db/unavailable.ts';
import { STORAGE_UNAVAILABLE, StorageUnavailableError } from '../storage/storage-unavailable.ts';
import { QUEUE_UNAVAILABLE, QueueUnavailableError } from '../jobs/queue-unavailable.ts';
import { ApiError } from './api-error.ts';
import { validationMessage } from './validation-message.ts';

/** An error reduced to what a client is told; `expected` is false for faults that belong in the error log. */
export interface ClassifiedError {
  statusCode: number;
  message: string;
  expected: boolean;
}

// Fastify's own client-error codes, with the wording the APIs use for them.
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content type: send application/json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'request body is not valid JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'content-length does not match the body',
  FST_ERR_MISSING_CONTENT_TYPE: 'content-type header is required',
};

/** Maps any thrown value to a status and a message safe to show; 5xx details never leave the server. */
export function classifyError(error: unknown, internalMessage: string): ClassifiedError {
  if (error instanceof ApiError)
    return { statusCode: error.statusCode, message: error.message, expected: true };
  const fastifyError = error as Partial<FastifyError> & { validationContext?: string };
  if (fastifyError.validation) {
    return {
      statusCode: 400,
      message: validationMessage(fastifyError.validation, fastifyError.validationContext),
      expected: true,
    };
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const known = fastifyError.code ? FASTIFY_MESSAGES[fastifyError.code] : undefined;
    // A SyntaxError from the JSON parser carries a 400 but no Fastify code.
    const message =
      known ?? (error instanceof SyntaxError ? FASTIFY_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY : undefined);
    return { statusCode: status, message: message ?? fastifyError.message ?? 'bad request', expected: true };
  }
  // Checked first: the queue's error quotes Redis's wording ("Connection is closed."), which reads like the
  // database driver's, and the store's network errors carry the same socket codes as the database's.
  if (error instanceof QueueUnavailableError || isRedisOutage(error))
    return { statusCode: 503, message: QUEUE_UNAVAILABLE, expected: false };
  if (error instanceof StorageUnavailableError)
    return { statusCode: 503, message: STORAGE_UNAVAILABLE, expected: false };
  if (isDatabaseUnavailable(error))
    return { statusCode: 503, message: DATABASE_UNAVAILABLE, expected: false };
  return { statusCode: 500, message: internalMessage, expected: false };
}

// What ioredis says when a command meets a connection that is down, slow or not accepting commands; an S3 or
// database client never words its failures so.
const REDIS_OUTAGE_WORDING =
  /Connection is closed|Stream isn't writeable|enableOfflineQueue|Reached the max retries per request|Command timed out/;

/**
 * True for a failure caused by Redis being away, raised by ioredis itself or wrapped as a store failure (the holds
 * on finished uploads and the resumable uploads' locks live in Redis, beside the job queue): the client is told
 * the queue's server is down, not the bucket.
 */
export function isRedisOutage(error: unknown): boolean {
  const cause = (error instanceof StorageUnavailableError ? error.cause : error) as
    { name?: unknown; message?: unknown } | undefined;
  if (cause?.name === 'MaxRetriesPerRequestError') return true;
  return typeof cause?.message === 'string' && REDIS_OUTAGE_WORDING.test(cause.message);
}
