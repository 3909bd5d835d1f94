import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.ts';

/** The answer to a text value holding U+0000, which PostgreSQL cannot store and SQLite would. */
export function nulMessage(field: string): string {
  return `${field} must not contain NUL characters`;
}

/**
 * Names the first field of a parsed value (a body, a query, path parameters) whose text holds U+0000, or
 * returns undefined. Arrays are named by their field (`group_ids`), nested objects by their path (`a.b`).
 * Walks with an explicit stack, so a deeply nested body cannot overflow the call stack.
 */
export function fieldWithNul(value: unknown, name = 'body'): string | undefined {
  const stack: [value: unknown, name: string][] = [[value, name]];
  while (stack.length > 0) {
    const [current, field] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\0')) return field;
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push([item, field]);
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        stack.push([
          item,
          field === 'body' || field === 'query' || field === 'params' ? key : `${field}.${key}`,
        ]);
      }
    }
  }
  return undefined;
}

const bodiesWithoutNul = new WeakSet<FastifyRequest>();

/**
 * Records that a request's JSON text holds no `\u0000` escape, the only way JSON can carry a NUL, so the hook
 * below need not walk a 100,000-item body to find none.
 */
export function noteJsonText(request: FastifyRequest, text: string): void {
  if (!text.includes('\\u0000')) bodiesWithoutNul.add(request);
}

/**
 * A `preHandler` hook refusing any path parameter, query value or JSON body string holding U+0000 with 400,
 * so both databases treat text alike (PostgreSQL would fail the statement, SQLite would store it). It runs
 * after the schemas, so a value they refuse anyway (a malformed id, a non-numeric limit) keeps its own message.
 */
export function refuseNulText(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const field =
    fieldWithNul(request.params, 'params') ??
    fieldWithNul(request.query, 'query') ??
    (bodiesWithoutNul.has(request) ? undefined : fieldWithNul(request.body, 'body'));
  done(field ? new ApiError(400, nulMessage(field)) : undefined);
}
