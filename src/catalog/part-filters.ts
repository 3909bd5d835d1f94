import { ApiError } from '../http/api-error.ts';
import { canonicalValue } from '../pipeline/part-properties.ts';
import type { FlatProperty } from '../pipeline/part-properties.ts';

/** One `where=Set.Name=value` condition, its value typed as the filter table stores it. */
export type PropertyCondition = FlatProperty;

/** What `GET …/parts` narrows its list by: every condition (AND), and a text that must occur somewhere. */
export interface PartFilter {
  where: PropertyCondition[];
  /** Lower-case text to find in a part's name or in one of its property values. */
  q?: string;
}

/** The 404 message of a group id the model does not have. */
export const PART_NOT_FOUND = 'Part not found';

/** Most `where` conditions one request may carry. */
export const MAX_CONDITIONS = 20;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads `where` conditions: `Set.Name=value`, split at the first `.` and the first `=` after it. A value `true` or
 * `false` is a boolean, a decimal number a number, text in double quotes (`"12"`) or anything else a string; a
 * condition matches only a property of the same type and value. Throws a 400 naming the condition it cannot read.
 */
export function parseWhere(values: readonly string[]): PropertyCondition[] {
  if (values.length > MAX_CONDITIONS) {
    throw new ApiError(400, `Too many where conditions: at most ${MAX_CONDITIONS}`);
  }
  return values.map((condition) => {
    const match = /^([^.=]+)\.([^=]+)=(.*)$/s.exec(condition);
    if (!match || match[1]!.trim() === '' || match[2]!.trim() === '') {
      throw new ApiError(
        400,
        `Invalid where condition "${condition}": expected Set.Name=value, e.g. Pset_WallCommon.IsExternal=true`,
      );
    }
    const [, setName, propertyName, raw] = match as unknown as [string, string, string, string];
    return { set_name: setName.trim(), property_name: propertyName.trim(), ...typedValue(raw) };
  });
}

function typedValue(raw: string): Pick<FlatProperty, 'value_type' | 'value'> {
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) return canonicalValue(raw.slice(1, -1));
  if (raw === 'true' || raw === 'false') return canonicalValue(raw === 'true');
  if (NUMBER.test(raw)) return canonicalValue(Number(raw));
  return canonicalValue(raw);
}

/** The filter of a parts request, or undefined when it has none (the list is then the plain list). */
export function partFilter(query: { where?: string | string[]; q?: string }): PartFilter | undefined {
  const where = query.where === undefined ? [] : ([] as string[]).concat(query.where);
  const q = query.q?.trim().toLowerCase();
  if (where.length === 0 && !q) return undefined;
  return { where: parseWhere(where), ...(q ? { q } : {}) };
}
