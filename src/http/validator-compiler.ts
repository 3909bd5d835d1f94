import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { allErrors: false, verbose: true, strict: false };

/**
 * Compiles route schemas with two validators: JSON bodies must already have the right types (a string is not a
 * number), while path and query values, which are always text on the wire, are coerced.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodyAjv = addFormats(new Ajv({ ...COMMON, coerceTypes: false, useDefaults: false }));
  const textAjv = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array', useDefaults: true }));
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
