import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { allErrors: false, verbose: true, strict: false };

/**
 * Validators compiled in this process, by the part they check and their schema's text. Every app built in a process
 * has the same route schemas, and compiling them was most of the time an app took to build (the tests build
 * hundreds, a server one); a validator keeps no state between calls but the errors of the last, which Fastify
 * reads at once.
 */
const compiled = new Map<string, ValidateFunction>();
let validators: { body: Ajv; text: Ajv } | undefined;

/**
 * Compiles route schemas with two validators: JSON bodies must already have the right types (a string is not a
 * number), while path and query values, which are always text on the wire, are coerced.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  validators ??= {
    body: addFormats(new Ajv({ ...COMMON, coerceTypes: false, useDefaults: false })),
    text: addFormats(new Ajv({ ...COMMON, coerceTypes: 'array', useDefaults: true })),
  };
  const { body, text } = validators;
  return ({ schema, httpPart }) => {
    const part = httpPart === 'body' ? 'body' : 'text';
    const key = `${part} ${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = (part === 'body' ? body : text).compile(schema as object);
      compiled.set(key, validate);
    }
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
