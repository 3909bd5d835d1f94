/** Length units by the prefix of a STEP `SI_UNIT(prefix, .METRE.)`; `$` is no prefix. */
const STEP_PREFIXES: Record<string, string> = {
  $: 'm',
  '.MILLI.': 'mm',
  '.CENTI.': 'cm',
  '.DECI.': 'dm',
  '.KILO.': 'km',
  '.MICRO.': 'µm',
};

/** Short names of the units STEP writers name in a `CONVERSION_BASED_UNIT`. */
const CONVERSION_NAMES: Record<string, string> = {
  metre: 'm',
  meter: 'm',
  millimetre: 'mm',
  millimeter: 'mm',
  centimetre: 'cm',
  centimeter: 'cm',
  inch: 'in',
  foot: 'ft',
  feet: 'ft',
  yard: 'yd',
  mil: 'mil',
};

/** IGES global parameter 14, the model's units flag. */
const IGES_UNITS: Record<number, string> = {
  1: 'in',
  2: 'mm',
  4: 'ft',
  5: 'mi',
  6: 'm',
  7: 'km',
  8: 'mil',
  9: 'µm',
  10: 'cm',
  11: 'µin',
};

/**
 * The length unit a STEP or IGES file declares (`mm`, `in`, …) or `unknown`. OpenCASCADE converts
 * to the requested output unit itself; this only records what the source said.
 */
export function readCadUnit(bytes: Uint8Array, format: 'step' | 'iges'): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return (format === 'step' ? readStepUnit(text) : readIgesUnit(text)) ?? 'unknown';
}

function readStepUnit(text: string): string | undefined {
  // A conversion-based unit (inch, foot) also mentions the SI unit it is defined by, so it wins.
  const converted =
    /CONVERSION_BASED_UNIT\s*\(\s*'([^']+)'[^;]*LENGTH_UNIT|LENGTH_UNIT[^;]*CONVERSION_BASED_UNIT\s*\(\s*'([^']+)'/i.exec(
      text,
    );
  const name = (converted?.[1] ?? converted?.[2])?.toLowerCase();
  if (name) return CONVERSION_NAMES[name] ?? name;
  const si =
    /LENGTH_UNIT\s*\(\s*\)\s*NAMED_UNIT\s*\([^)]*\)\s*SI_UNIT\s*\(\s*([.A-Z]+\.|\$)\s*,\s*\.METRE\.\s*\)/i.exec(
      text,
    );
  const any = si ?? /SI_UNIT\s*\(\s*([.A-Z]+\.|\$)\s*,\s*\.METRE\.\s*\)/i.exec(text);
  return any ? STEP_PREFIXES[any[1].toUpperCase()] : undefined;
}

function readIgesUnit(text: string): string | undefined {
  // The global section is the lines marked 'G' in column 73, fields split by the declared delimiter.
  const global = text
    .split(/\r?\n/)
    .filter((line) => line[72] === 'G')
    .map((line) => line.slice(0, 72))
    .join('');
  const fields = splitIgesFields(global);
  const flag = Number(fields[13]);
  return Number.isInteger(flag) ? IGES_UNITS[flag] : undefined;
}

/** Splits IGES global parameters, honouring Hollerith strings (`4Hname`) that may hold delimiters. */
function splitIgesFields(global: string): string[] {
  let delimiter = ',';
  let end = ';';
  if (global.startsWith('1H')) delimiter = global[2];
  const fields: string[] = [];
  let i = 0;
  while (i < global.length && fields.length < 20) {
    const hollerith = /^\s*(\d+)H/.exec(global.slice(i, i + 12));
    let value: string;
    if (hollerith) {
      const start = i + hollerith[0].length;
      value = global.slice(start, start + Number(hollerith[1]));
      i = start + value.length;
    } else {
      let j = i;
      while (j < global.length && global[j] !== delimiter && global[j] !== end) j++;
      value = global.slice(i, j).trim();
      i = j;
    }
    fields.push(value);
    if (fields.length === 2 && value.length === 1) end = value;
    if (global[i] === end) break;
    i++;
  }
  return fields;
}
