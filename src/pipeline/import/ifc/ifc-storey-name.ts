// A building storey's name as people read it: many exporters leave a storey's Name empty and say where it is only
// by its LongName, its ObjectType or its Elevation, and an express id (`#38`) tells a reader nothing.
import type { IfcAPI } from 'web-ifc';
import { placementElevation } from './ifc-placement.ts';
import { rawArguments, refId, scalarOf, textOf } from './ifc-values.ts';

/** Metres in one of the project's length units, by the symbols ifc-units.ts and readLengthUnit give them. */
const METRES_PER_UNIT: Record<string, number> = {
  mm: 0.001,
  cm: 0.01,
  dm: 0.1,
  m: 1,
  km: 1000,
  in: 0.0254,
  inch: 0.0254,
  ft: 0.3048,
  foot: 0.3048,
  yd: 0.9144,
  yard: 0.9144,
};

/**
 * The name of the storey `id`: its Name, else its LongName, else its ObjectType, else its Elevation (or, when it
 * states none, the height its placement puts it at) as `Storey at +3.00 m` (in metres when the project's length
 * unit is known, else as written), else `Storey #<id>`.
 * `lengthUnit` is the project's length unit symbol (`mm`, `m`, `ft`…), undefined when it declares none.
 */
export function ifcStoreyName(
  api: IfcAPI,
  modelID: number,
  id: number,
  lengthUnit: string | undefined,
): string {
  // IfcBuildingStorey: GlobalId, OwnerHistory, Name, Description, ObjectType, ObjectPlacement, Representation,
  // LongName, CompositionType, Elevation.
  const args = rawArguments(api, modelID, id);
  const named = [args[2], args[7], args[4]].map((arg) => textOf(arg)?.trim()).find((text) => text);
  if (named) return named;
  const stated = scalarOf(args[9]);
  const placement = refId(args[5]);
  const elevation =
    typeof stated === 'number'
      ? stated
      : placement === undefined
        ? undefined
        : placementElevation(api, modelID, placement);
  if (elevation === undefined || !Number.isFinite(elevation)) return `Storey #${id}`;
  return `Storey at ${elevationText(elevation, lengthUnit)}`;
}

/** An elevation with its sign, in metres to the centimetre when the unit is known, else in the file's unit. */
function elevationText(elevation: number, lengthUnit: string | undefined): string {
  const scale = lengthUnit === undefined ? undefined : METRES_PER_UNIT[lengthUnit];
  if (scale === undefined)
    return `${elevation >= 0 ? '+' : ''}${elevation}${lengthUnit ? ` ${lengthUnit}` : ''}`;
  const metres = Math.round(elevation * scale * 100) / 100;
  // ASCII signs, so a filter typed on a keyboard finds the name; −0.004 m rounds to +0.00, not −0.00.
  return `${metres < 0 ? '-' : '+'}${Math.abs(metres).toFixed(2)} m`;
}
