import { searchFold } from '../db/search-fold.ts';
import { ApiError } from '../http/api-error.ts';
import { canonicalValue } from '../pipeline/part-properties.ts';
import type { FlatProperty } from '../pipeline/part-properties.ts';

/** One `where=Set.Name=value` condition, its value typed as the filter table stores it. */
export type PropertyCondition = FlatProperty;

/** What `GET …/parts` narrows its list by: every condition (AND), and a text that must occur somewhere. */
export interface PartFilter {
  where: PropertyCondition[];
  /** Text to find in a part's name or in one of its property values, folded as search folds it (any case). */
  q?: string;
}

/** The 404 message of a group id the model does not have. */
export const PART_NOT_FOUND = 'Part not found';

/** Most `where` conditions one request may carry. */
export const MAX_CONDITIONS = 20;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads `where` conditions: `Set.Name=value`, split at the first `.` and the first `=` after it; a set name that
 * holds a dot is written in double quotes (`"Pset.Custom".Name=value`). A value `true` or
 * `false` is a boolean, a decimal number a number, text in double quotes (`"12"`) or anything else a string; a
 * condition matches only a property of the same type and value. Throws a 400 naming the condition it cannot read.
 */
export function parseWhere(values: readonly string[]): PropertyCondition[] {
  if (values.length > MAX_CONDITIONS) {
    throw new ApiError(400, `Too many where conditions: at most ${MAX_CONDITIONS}`);
  }
  return values.map((condition) => {
    // A quoted set name may hold dots (some exporters name sets `Pset.Custom`); an unquoted one ends at the first.
    const match = /^(?:"([^"]+)"|([^.="]+))\.([^=]+)=(.*)$/s.exec(condition);
    const setName = (match?.[1] ?? match?.[2] ?? '').trim();
    const propertyName = (match?.[3] ?? '').trim();
    if (!match || setName === '' || propertyName === '') {
      throw new ApiError(
        400,
        `Invalid where condition "${condition}": expected Set.Name=value, e.g. Pset_WallCommon.IsExternal=true`,
      );
    }
    return { set_name: setName, property_name: propertyName, ...typedValue(match[4]!) };
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
  const q = query.q === undefined ? undefined : searchFold(query.q.trim());
  if (where.length === 0 && !q) return undefined;
  return { where: parseWhere(where), ...(q ? { q } : {}) };
}
