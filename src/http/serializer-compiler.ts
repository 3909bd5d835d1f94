import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';

/**
 * Response serializers built in this process, by their schema's text: every app built in a process has the same
 * response schemas (see validator-compiler.ts). A serializer is a pure function of its schema.
 */
const built = new Map<string, (data: unknown) => string>();

/**
 * Builds response serializers as Fastify's own compiler does (fast-json-stringify, no shared schemas: the routes
 * inline theirs), each schema once a process.
 */
export const cachedSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = JSON.stringify(schema);
  let serialize = built.get(key);
  if (!serialize) {
    serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], {});
    built.set(key, serialize);
  }
  return serialize;
};
