import type { IfcAPI } from 'web-ifc';
import type { PropertyScalar } from '../../part-properties.ts';

/** web-ifc's tag of a reference attribute. */
const REFERENCE = 5;
/** web-ifc's tag of a REAL attribute, whose value it keeps as the file's text (`"6."`). */
const REAL = 4;

/** An attribute as web-ifc returns it: `{type, value}`, a typed value `{type: 2, typecode, value}`, or a list. */
export type RawAttribute = { type?: number; typecode?: number; value?: unknown } | null | undefined;

/** The attributes of a line as web-ifc stores them, without building a typed object. */
export function rawArguments(api: IfcAPI, modelID: number, expressID: number): unknown[] {
  const raw = api.GetRawLineData(modelID, expressID) as { arguments?: unknown[] } | undefined;
  return raw?.arguments ?? [];
}

/** Each type code's class in upper case: a code is a hash of the class's name, the same in every schema. */
const classNames = new Map<number, string>();

/** The IFC class of a line in upper case (`IFCWALL`), so comparisons need not know each schema's spelling. */
export function lineClass(api: IfcAPI, modelID: number, expressID: number): string {
  const code = api.GetLineType(modelID, expressID) as number;
  let name = classNames.get(code);
  if (name === undefined) classNames.set(code, (name = (api.GetNameFromTypeCode(code) ?? '').toUpperCase()));
  return name;
}

/** The express id a reference attribute points to. */
export function refId(value: unknown): number | undefined {
  const attribute = value as RawAttribute;
  return attribute?.type === REFERENCE && typeof attribute.value === 'number' ? attribute.value : undefined;
}

/** The express ids of a list of references (an absent list is empty). */
export function refIds(value: unknown): number[] {
  return Array.isArray(value) ? value.map(refId).filter((id): id is number => id !== undefined) : [];
}

/** The text of a string or enum attribute. */
export function textOf(value: unknown): string | undefined {
  const inner = (value as RawAttribute)?.value;
  return typeof inner === 'string' ? inner : undefined;
}

/** The IFC measure type of a typed value (`IFCLENGTHMEASURE`), when it has one. */
export function measureOf(api: IfcAPI, value: unknown): string | undefined {
  const code = (value as RawAttribute)?.typecode;
  return code === undefined ? undefined : api.GetNameFromTypeCode(code)?.toUpperCase();
}

/**
 * A scalar attribute or typed value as JSON: REALs and measures as numbers, `.T.`/`.F.` as booleans; undefined for
 * references and lists. `measure` is the value's IFC type from {@link measureOf}, when it has one.
 */
export function scalarOf(value: unknown, measure?: string): PropertyScalar | undefined {
  const attribute = value as RawAttribute;
  if (!attribute || typeof attribute !== 'object' || attribute.type === REFERENCE) return undefined;
  const inner = attribute.value;
  if (typeof inner === 'boolean') return inner;
  if (typeof inner === 'number') return inner;
  if (typeof inner !== 'string') return undefined;
  if (attribute.type === REAL || /INTEGER|MEASURE|REAL|NUMBER|COUNT/.test(measure ?? '')) {
    const number = Number(inner);
    if (inner.trim() !== '' && Number.isFinite(number)) return number;
  }
  if (inner === 'T' || inner === 'TRUE') return true;
  if (inner === 'F' || inner === 'FALSE') return false;
  return inner;
}
