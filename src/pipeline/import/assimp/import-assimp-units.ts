import type { UpAxis } from '../import-frame.ts';
import type { ModelFormat } from '../../types.ts';

/** What a source file says about its units and up axis, and what is left to do after assimp. */
export interface SourceFrame {
  /** Length unit the file declares (`m`, `cm`, `mm`, `in`, …) or `unknown`. */
  unit: string;
  /** Up axis the file declares, or `unknown`. */
  upAxis: UpAxis | 'unknown';
  /** Scale still to apply to reach metres (1 when assimp applied the unit or none is known). */
  metresPerUnit: number;
  /** Up axis still to turn to +Y (`+Y` when assimp already turned it or none is known). */
  remainingUpAxis: UpAxis | 'unknown';
}

const UNITLESS: SourceFrame = {
  unit: 'unknown',
  upAxis: 'unknown',
  metresPerUnit: 1,
  remainingUpAxis: 'unknown',
};

/**
 * Reads the unit and up axis a model file declares. assimp applies COLLADA's `<unit>` and
 * `<up_axis>` and turns 3DS to Y-up itself but leaves FBX in file units and file axes, so only FBX
 * has work left.
 */
export function readSourceFrame(bytes: Uint8Array, format: ModelFormat): SourceFrame {
  if (format === 'fbx') return readFbxFrame(bytes);
  if (format === 'dae') return readColladaFrame(bytes);
  // 3ds Max scenes are Z-up; assimp's 3DS importer turns its root node to Y-up itself.
  if (format === '3ds') return { ...UNITLESS, upAxis: '+Z', remainingUpAxis: '+Y' };
  return UNITLESS;
}

/** FBX `GlobalSettings`: `UnitScaleFactor` is centimetres per unit (1 when absent), `UpAxis` 0/1/2 with a sign. */
function readFbxFrame(bytes: Uint8Array): SourceFrame {
  const factor = readFbxNumber(bytes, 'UnitScaleFactor') ?? 1;
  const axis = readFbxNumber(bytes, 'UpAxis') ?? 1;
  const sign = readFbxNumber(bytes, 'UpAxisSign') ?? 1;
  const upAxis = `${sign < 0 ? '-' : '+'}${'XYZ'[axis] ?? 'Y'}` as UpAxis;
  const metresPerUnit = factor > 0 && Number.isFinite(factor) ? factor / 100 : 0.01;
  return { unit: unitName(metresPerUnit), upAxis, metresPerUnit, remainingUpAxis: upAxis };
}

/** The first number of an FBX `P:` property named `name`, in the binary or the ASCII encoding. */
function readFbxNumber(bytes: Uint8Array, name: string): number | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.subarray(0, 18).toString('latin1') !== 'Kaydara FBX Binary') {
    const text = data.toString('latin1');
    const match = new RegExp(`"${name}"\\s*,(?:\\s*"[^"]*"\\s*,){3}\\s*([-+0-9.eE]+)`).exec(text);
    return match ? Number(match[1]) : undefined;
  }
  // A binary property record starts with the string type code 'S' and a 32-bit length.
  const key = Buffer.alloc(5 + name.length);
  key.write('S', 0, 'latin1');
  key.writeUInt32LE(name.length, 1);
  key.write(name, 5, 'latin1');
  const at = data.indexOf(key);
  if (at < 0) return undefined;
  let offset = at + key.length;
  for (let field = 0; field < 6 && offset < data.length; field++) {
    const type = String.fromCharCode(data[offset++]);
    if (type === 'S' || type === 'R') {
      offset += 4 + data.readUInt32LE(offset);
    } else if (type === 'D') return data.readDoubleLE(offset);
    else if (type === 'F') return data.readFloatLE(offset);
    else if (type === 'I') return data.readInt32LE(offset);
    else if (type === 'L') return Number(data.readBigInt64LE(offset));
    else if (type === 'Y') return data.readInt16LE(offset);
    else return undefined;
  }
  return undefined;
}

/** COLLADA `<asset>`: `<unit meter="…">` and `<up_axis>`, both already applied by assimp. */
function readColladaFrame(bytes: Uint8Array): SourceFrame {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 65536)).toString(
    'utf8',
  );
  const asset = /<asset[\s>][\s\S]*?<\/asset>/.exec(head)?.[0] ?? '';
  const meter = Number(/<unit\b[^>]*\bmeter\s*=\s*"([^"]+)"/.exec(asset)?.[1] ?? 1);
  const axis = /<up_axis>\s*([XYZ])_UP\s*<\/up_axis>/.exec(asset)?.[1] ?? 'Y';
  return {
    unit: unitName(meter > 0 ? meter : 1),
    upAxis: `+${axis}` as UpAxis,
    metresPerUnit: 1,
    remainingUpAxis: '+Y',
  };
}

const UNIT_NAMES: [number, string][] = [
  [1, 'm'],
  [0.01, 'cm'],
  [0.001, 'mm'],
  [0.1, 'dm'],
  [1000, 'km'],
  [0.0254, 'in'],
  [0.3048, 'ft'],
  [0.9144, 'yd'],
];

/** Short name of a unit given in metres, or the factor itself when it has no common name. */
export function unitName(metres: number): string {
  const named = UNIT_NAMES.find(([value]) => Math.abs(value - metres) <= value * 1e-6);
  return named ? named[1] : `${metres} m`;
}
