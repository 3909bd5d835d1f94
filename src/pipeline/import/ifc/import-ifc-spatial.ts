import type { IfcAPI } from 'web-ifc';
import { ifcStoreyName } from './ifc-storey-name.ts';

/** Type codes of the IFC relations that place one object under another. */
export interface IfcRelationTypes {
  IFCRELAGGREGATES: number;
  IFCRELCONTAINEDINSPATIALSTRUCTURE: number;
  IFCRELNESTS: number;
}

/** What a node built from an IFC object needs to know about it. */
export interface IfcObjectInfo {
  /** The `GlobalId`, or `#<express id>` for the rare object without one. */
  globalId: string;
  /** The `Name`, falling back to the IFC class (`IfcWall`), or for a storey to its readable name. */
  name: string;
  /** IFC class of the object, e.g. `IfcWallStandardCase`. */
  type: string;
}

/**
 * The parent of every object that is decomposed from (`IfcRelAggregates`, `IfcRelNests`) or
 * contained in (`IfcRelContainedInSpatialStructure`) another, so a product's ancestors read
 * Project / Site / Building / Storey (/ the assembly it belongs to).
 */
export function readParents(api: IfcAPI, modelID: number, types: IfcRelationTypes): Map<number, number> {
  const parents = new Map<number, number>();
  // Decomposition is read first and wins: an element in an assembly stays under the assembly.
  for (const relation of [
    types.IFCRELAGGREGATES,
    types.IFCRELNESTS,
    types.IFCRELCONTAINEDINSPATIALSTRUCTURE,
  ]) {
    const ids = api.GetLineIDsWithType(modelID, relation);
    for (let i = 0; i < ids.size(); i++) {
      // Raw attributes, because web-ifc cannot build typed lines for every entity of every schema.
      // After IfcRoot's four attributes come the relating object and the related list, in either order.
      const [first, second] = rawArguments(api, modelID, ids.get(i)).slice(4, 6);
      const parent = refId(Array.isArray(first) ? second : first);
      const children = Array.isArray(first) ? first : Array.isArray(second) ? second : [];
      if (parent === undefined) continue;
      for (const child of children) {
        const id = refId(child);
        if (id !== undefined && id !== parent && !parents.has(id)) parents.set(id, parent);
      }
    }
  }
  return parents;
}

/**
 * GlobalId, display name and class of one IFC object (an `IfcRoot`: GlobalId first, Name third). An unnamed
 * storey is named by ifcStoreyName, in the project's `lengthUnit` (undefined when unknown).
 */
export function readObjectInfo(
  api: IfcAPI,
  modelID: number,
  expressID: number,
  lengthUnit?: string,
): IfcObjectInfo {
  const type = api.GetNameFromTypeCode(api.GetLineType(modelID, expressID)) || 'IfcProduct';
  const args = rawArguments(api, modelID, expressID);
  const unnamed =
    type.toUpperCase() === 'IFCBUILDINGSTOREY' ? ifcStoreyName(api, modelID, expressID, lengthUnit) : type;
  const name = text(args[2])?.trim() || unnamed;
  return { globalId: text(args[0]) ?? `#${expressID}`, name, type };
}

/** The length unit the project declares (`mm`, `m`, `ft`, …) or `unknown`. */
export function readLengthUnit(api: IfcAPI, modelID: number, projectType: number): string {
  try {
    const projects = api.GetLineIDsWithType(modelID, projectType);
    if (projects.size() === 0) return 'unknown';
    const assignment = refId(rawArguments(api, modelID, projects.get(0))[8]);
    if (assignment === undefined) return 'unknown';
    const units = rawArguments(api, modelID, assignment)[0];
    for (const reference of Array.isArray(units) ? units : []) {
      const id = refId(reference);
      if (id === undefined) continue;
      const args = rawArguments(api, modelID, id);
      const enums = args.filter((arg) => (arg as { type?: number } | null)?.type === 3).map(text);
      if (enums[0] !== 'LENGTHUNIT') continue;
      const name = (
        enums.length > 1
          ? enums[enums.length - 1]
          : args.map(text).find((value) => value && value !== 'LENGTHUNIT')
      )?.toUpperCase();
      if (name === 'METRE') return `${SI_PREFIXES[enums.length > 2 ? (enums[1] ?? '') : ''] ?? ''}m`;
      return CONVERTED_UNITS[name ?? ''] ?? name?.toLowerCase() ?? 'unknown';
    }
  } catch {
    // The unit only annotates the result; geometry is already scaled by web-ifc.
  }
  return 'unknown';
}

const SI_PREFIXES: Record<string, string> = { MILLI: 'm', CENTI: 'c', DECI: 'd', KILO: 'k', MICRO: 'µ' };
const CONVERTED_UNITS: Record<string, string> = { INCH: 'in', FOOT: 'ft', YARD: 'yd', MILE: 'mi' };

/** The attributes of a line as web-ifc stores them, without building a typed object. */
function rawArguments(api: IfcAPI, modelID: number, expressID: number): unknown[] {
  const raw = api.GetRawLineData(modelID, expressID) as { arguments?: unknown[] } | undefined;
  return raw?.arguments ?? [];
}

/** The express id a reference attribute points to. */
function refId(value: unknown): number | undefined {
  const id = (value as { value?: unknown } | null | undefined)?.value;
  return typeof id === 'number' ? id : undefined;
}

/** The value of a string or enum attribute. */
function text(value: unknown): string | undefined {
  const inner = (value as { value?: unknown } | null | undefined)?.value;
  return typeof inner === 'string' ? inner : undefined;
}
