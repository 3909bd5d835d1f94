import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

interface FieldSchema {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minItems?: number;
  items?: FieldSchema;
  enum?: unknown[];
  anyOf?: FieldSchema[];
  format?: string;
  const?: unknown;
}

// Bounds at or beyond this only guard storage limits (and Infinity); they are not worth telling a person.
const HUGE = 2 ** 31 - 1;

/** Turns the first schema violation into one sentence that names the field, e.g. `alpha must be a number between 0 and 255`. */
export function validationMessage(
  errors: FastifySchemaValidationError[],
  context: string | undefined,
): string {
  const error = errors[0] as FastifySchemaValidationError & { parentSchema?: FieldSchema };
  if (!error) return 'invalid request';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${String(params.missingProperty)} is required`;
  if (error.keyword === 'additionalProperties') return `unknown field ${String(params.additionalProperty)}`;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const custom = schema[`x-error-message-${error.keyword}`] ?? schema['x-error-message'];
  if (typeof custom === 'string') return custom;
  const field = fieldName(error.instancePath);
  if (!field) return context === 'body' ? 'body must be a JSON object' : `${context ?? 'request'} is invalid`;
  return `${field} ${describe(error.parentSchema ?? {}, error.keyword)}`;
}

function fieldName(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((part, index) => (/^\d+$/.test(part) && index > 0 ? `[${part}]` : part))
    .join('')
    .replace(/^\./, '');
}

function describe(schema: FieldSchema, keyword: string): string {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum) return `must be one of ${schema.enum.join(', ')}`;
  if (schema.anyOf) return `must be ${schema.anyOf.map((s) => article(s)).join(' or ')}`;
  if (type === 'number' || type === 'integer') {
    // A guard bound is left out of the usual sentence, but when it is the bound that was crossed, say so.
    if (keyword === 'maximum' && !range(schema).includes('<=') && !range(schema).includes('between')) {
      const max = schema.maximum ?? 0;
      return max >= Number.MAX_VALUE
        ? `must be a finite number${range(schema)}`
        : `must be ${article(schema)} <= ${max}`;
    }
    return `must be ${article(schema)}${range(schema)}`;
  }
  if (type === 'string') {
    if (schema.format) return `must be a valid ${schema.format}`;
    return `must be a string${lengthRange(schema.minLength, schema.maxLength, 'character')}`;
  }
  if (type === 'array') {
    if (keyword === 'maxItems') return `must hold at most ${schema.maxItems} items`;
    if (keyword === 'minItems')
      return `must hold at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`;
    return `must be an array${schema.items ? ` of ${plural(schema.items)}` : ''}`;
  }
  if (type === 'boolean') return 'must be true or false';
  if (type === 'object') return 'must be a JSON object';
  return 'is invalid';
}

function article(schema: FieldSchema): string {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer') return 'an integer';
  if (type === 'number') return 'a number';
  if (type === 'array') return 'an array';
  if (type === 'object') return 'an object';
  if (type === 'null') return 'null';
  return `a ${type ?? 'value'}`;
}

function plural(schema: FieldSchema): string {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return `strings${lengthRange(schema.minLength, schema.maxLength, 'character')}`;
  return `${type ?? 'value'}s`;
}

function range(schema: FieldSchema): string {
  const min = schema.minimum;
  const max = schema.maximum !== undefined && schema.maximum < HUGE ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) return ` between ${min} and ${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
}

function lengthRange(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return ` of ${min} to ${max} ${unit}s`;
  if (max !== undefined) return ` of at most ${max} ${unit}s`;
  if (min !== undefined) return ` of at least ${min} ${unit}${min === 1 ? '' : 's'}`;
  return '';
}
