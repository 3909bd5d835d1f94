import { cleanText } from './clean-text.ts';

/** A property value as the file gives it. */
export type PropertyScalar = string | number | boolean;

/** A property value, with its unit when the file gives one (`{ "value": 5.2, "unit": "m" }`). */
export type PropertyValue = PropertyScalar | { value: PropertyScalar; unit: string };

/** A part's properties: named sets (an IFC property set, `Element`, `Extras`, …) of named values. */
export type PartProperties = Record<string, Record<string, PropertyValue>>;

/**
 * Caps that keep what travels from the conversion thread to the job, and into the database, bounded whatever the
 * file holds. Longer text is cut (ending in `…`); properties past a cap are dropped with a warning.
 */
export const PROPERTY_LIMITS = {
  /** Characters of a set or property name. */
  nameLength: 128,
  /** Characters of a string value or a unit. */
  valueLength: 1_000,
  /** Properties of one part, over all its sets. */
  perPart: 500,
  /** Properties of one model, over all its parts. */
  perModel: 250_000,
} as const;

/** The key under which an importer hands a node's properties to extract-parts, which takes it out again. */
export const PROPERTIES_EXTRAS_KEY = 'vitrine_properties';

/** One property as the filter table stores it: the value as canonical text, with its type. */
export interface FlatProperty {
  set_name: string;
  property_name: string;
  value_type: 'boolean' | 'number' | 'string';
  value: string;
}

/** A value as the filter table compares it: booleans as `true`/`false`, numbers as `String(n)`. */
export function canonicalValue(value: PropertyScalar): Pick<FlatProperty, 'value_type' | 'value'> {
  if (typeof value === 'boolean') return { value_type: 'boolean', value: String(value) };
  if (typeof value === 'number') return { value_type: 'number', value: String(value) };
  return { value_type: 'string', value };
}

/** The properties of a part one row per property, in set order. */
export function flattenProperties(properties: PartProperties): FlatProperty[] {
  const rows: FlatProperty[] = [];
  for (const [setName, set] of Object.entries(properties)) {
    for (const [propertyName, value] of Object.entries(set)) {
      const scalar = typeof value === 'object' ? value.value : value;
      rows.push({ set_name: setName, property_name: propertyName, ...canonicalValue(scalar) });
    }
  }
  return rows;
}

/**
 * Properties within {@link PROPERTY_LIMITS}: names and strings cleaned of control characters and cut to length,
 * non-finite numbers and empty names dropped, at most `budget` properties kept. Returns them with the count kept.
 */
export function boundProperties(
  properties: PartProperties,
  budget: number = PROPERTY_LIMITS.perPart,
): { properties: PartProperties; count: number; dropped: number } {
  const bounded: PartProperties = {};
  let count = 0;
  let dropped = 0;
  const limit = Math.min(budget, PROPERTY_LIMITS.perPart);
  for (const [rawSet, set] of Object.entries(properties)) {
    const setName = cut(cleanText(rawSet), PROPERTY_LIMITS.nameLength);
    for (const [rawName, raw] of Object.entries(set)) {
      const name = cut(cleanText(rawName), PROPERTY_LIMITS.nameLength);
      const value = boundValue(raw);
      if (setName === '' || name === '' || value === undefined) continue;
      if (count >= limit) {
        dropped++;
        continue;
      }
      (bounded[setName] ??= {})[name] = value;
      count++;
    }
  }
  return { properties: bounded, count, dropped };
}

function boundValue(value: PropertyValue): PropertyValue | undefined {
  if (typeof value === 'object' && value !== null) {
    const inner = boundScalar(value.value);
    const unit =
      typeof value.unit === 'string' ? cut(cleanText(value.unit), PROPERTY_LIMITS.valueLength) : '';
    if (inner === undefined) return undefined;
    return unit === '' ? inner : { value: inner, unit };
  }
  return boundScalar(value);
}

function boundScalar(value: unknown): PropertyScalar | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') return cut(cleanText(value), PROPERTY_LIMITS.valueLength);
  return undefined;
}

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/**
 * Properties from a glTF node's `extras` (what an author or exporter wrote there): scalar members form the
 * `Extras` set, an object member of scalars a set of its own name; arrays and deeper objects are kept as JSON text.
 * `group_id` and `ifc_type` are Vitrine's own and left out.
 */
export function propertiesFromExtras(extras: Record<string, unknown>): PartProperties {
  const properties: PartProperties = {};
  for (const [key, value] of Object.entries(extras)) {
    if (key === 'group_id' || key === 'ifc_type' || key === PROPERTIES_EXTRAS_KEY) continue;
    const scalar = asScalar(value);
    if (scalar !== undefined) {
      (properties.Extras ??= {})[key] = scalar;
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, member] of Object.entries(value)) {
        const inner = asScalar(member) ?? JSON.stringify(member);
        if (inner !== undefined) (properties[key] ??= {})[name] = inner;
      }
    } else if (Array.isArray(value)) {
      (properties.Extras ??= {})[key] = JSON.stringify(value);
    }
  }
  return properties;
}

function asScalar(value: unknown): PropertyScalar | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}
