import type { IfcAPI } from 'web-ifc';
import { lineClass, rawArguments, refId, refIds, textOf } from './ifc-values.ts';

/** The project's default unit symbol of each unit type (`LENGTHUNIT` → `m`, `AREAUNIT` → `m²`). */
export type IfcUnits = Map<string, string>;

/** web-ifc's tag of an enumeration attribute. */
const ENUM = 3;

const SI_PREFIXES: Record<string, string> = {
  EXA: 'E',
  PETA: 'P',
  TERA: 'T',
  GIGA: 'G',
  MEGA: 'M',
  KILO: 'k',
  HECTO: 'h',
  DECA: 'da',
  DECI: 'd',
  CENTI: 'c',
  MILLI: 'm',
  MICRO: 'µ',
  NANO: 'n',
};

const SI_NAMES: Record<string, string> = {
  METRE: 'm',
  SQUARE_METRE: 'm²',
  CUBIC_METRE: 'm³',
  GRAM: 'g',
  SECOND: 's',
  RADIAN: 'rad',
  STERADIAN: 'sr',
  DEGREE_CELSIUS: '°C',
  KELVIN: 'K',
  NEWTON: 'N',
  PASCAL: 'Pa',
  JOULE: 'J',
  WATT: 'W',
  HERTZ: 'Hz',
  AMPERE: 'A',
  VOLT: 'V',
  LUMEN: 'lm',
  LUX: 'lx',
  CANDELA: 'cd',
  MOLE: 'mol',
};

/** A unit entity's symbol: `mm`, `m²`, a conversion-based unit's own name (`foot`); undefined when unnamed. */
export function unitSymbol(api: IfcAPI, modelID: number, unitId: number): string | undefined {
  const kind = lineClass(api, modelID, unitId);
  const args = rawArguments(api, modelID, unitId);
  if (kind === 'IFCSIUNIT') {
    // web-ifc leaves out the derived `*` Dimensions, so the list may start at UnitType.
    const [, prefixArg, nameArg] = args.length >= 4 ? args.slice(1) : args;
    const name = SI_NAMES[textOf(nameArg) ?? ''];
    if (!name) return undefined;
    const prefix = SI_PREFIXES[textOf(prefixArg) ?? ''] ?? '';
    // The prefix goes before the base unit and its power: square millimetres are mm².
    return `${prefix}${name}`;
  }
  if (kind === 'IFCCONVERSIONBASEDUNIT' || kind === 'IFCCONVERSIONBASEDUNITWITHOFFSET') {
    return textOf(args[2])?.toLowerCase();
  }
  if (kind === 'IFCCONTEXTDEPENDENTUNIT') return textOf(args[2]);
  return undefined;
}

/** The unit types of the project's unit assignment with their symbols; empty when it has none. */
export function readProjectUnits(api: IfcAPI, modelID: number, projectId: number | undefined): IfcUnits {
  const units: IfcUnits = new Map();
  if (projectId === undefined) return units;
  try {
    const assignment = refId(rawArguments(api, modelID, projectId)[8]);
    if (assignment === undefined) return units;
    for (const unitId of refIds(rawArguments(api, modelID, assignment)[0])) {
      // UnitType is the first enumeration attribute of every named unit.
      const type = rawArguments(api, modelID, unitId)
        .map((arg) => ((arg as { type?: number } | null)?.type === ENUM ? textOf(arg) : undefined))
        .find((text) => text !== undefined);
      const symbol = unitSymbol(api, modelID, unitId);
      if (type && symbol && !units.has(type)) units.set(type, symbol);
    }
  } catch {
    // Units only annotate values; a damaged assignment leaves them bare.
  }
  return units;
}

/** The unit type a measure is given in by default (`IFCLENGTHMEASURE` → `LENGTHUNIT`). */
export function unitTypeOfMeasure(measure: string): string | undefined {
  const match =
    /^IFC(POSITIVE|NONNEGATIVE)?(LENGTH|AREA|VOLUME|MASS|PLANEANGLE|TIME|THERMODYNAMICTEMPERATURE)MEASURE$/.exec(
      measure,
    );
  return match ? `${match[2]}UNIT` : undefined;
}

/** The unit type of an IFC quantity class (`IFCQUANTITYAREA` → `AREAUNIT`); a count has none. */
export function unitTypeOfQuantity(quantityClass: string): string | undefined {
  return (
    {
      IFCQUANTITYLENGTH: 'LENGTHUNIT',
      IFCQUANTITYAREA: 'AREAUNIT',
      IFCQUANTITYVOLUME: 'VOLUMEUNIT',
      IFCQUANTITYWEIGHT: 'MASSUNIT',
      IFCQUANTITYTIME: 'TIMEUNIT',
    } as Record<string, string>
  )[quantityClass];
}
