import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { cachedSerializerCompiler } from '../../src/http/serializer-compiler.ts';
import { createValidatorCompiler } from '../../src/http/validator-compiler.ts';

/** What Fastify hands a compiler for one part of one route. */
const route = (schema: object, httpPart?: string) =>
  ({ schema, method: 'GET', url: '/x', httpPart }) as FastifyRouteSchemaDef<unknown>;

void it('shares a validator between apps for the same schema, but never between a body and a query', () => {
  const schema = Type.Object({ count: Type.Integer() });
  const first = createValidatorCompiler();
  const second = createValidatorCompiler();
  const body = first(route(schema, 'body'));
  // Another app, another object with the same text: the validator compiled for the first.
  assert.equal(second(route(structuredClone(schema), 'body')), body);
  // A body must already be a number; a query's text is coerced (and a default filled in).
  assert.equal(body({ count: '5' }), false);
  const query = second(route(schema, 'querystring'));
  assert.notEqual(query, body);
  const values = { count: '5' };
  assert.equal(query(values), true);
  assert.deepEqual(values, { count: 5 });
  // A different schema gets its own.
  assert.notEqual(first(route(Type.Object({ count: Type.String() }), 'body')), body);
});

void it('shares a serializer between apps for the same schema, and writes what Fastify’s own would', () => {
  const schema = Type.Object({ name: Type.String(), parts: Type.Integer() });
  const serialize = cachedSerializerCompiler(route(schema));
  assert.equal(cachedSerializerCompiler(route(structuredClone(schema))), serialize);
  // Properties outside the schema are left out; the text is JSON.
  assert.equal(serialize({ name: 'chair', parts: 4, secret: 'x' }), '{"name":"chair","parts":4}');
  const other = cachedSerializerCompiler(route(Type.Object({ name: Type.String() })));
  assert.notEqual(other, serialize);
  assert.equal(other({ name: 'chair', parts: 4 }), '{"name":"chair"}');
});
