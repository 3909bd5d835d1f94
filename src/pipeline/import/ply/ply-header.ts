import { ConversionError } from '../../types.ts';

/** The error of an unreadable PLY file, naming what is wrong. */
export const plyError = (reason: string) => new ConversionError(`Could not read the PLY file: ${reason}`);

/** Bytes of each PLY scalar type. */
export const TYPE_BYTES: Record<string, number> = {
  char: 1,
  int8: 1,
  uchar: 1,
  uint8: 1,
  short: 2,
  int16: 2,
  ushort: 2,
  uint16: 2,
  int: 4,
  int32: 4,
  uint: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

/** One property of an element: a scalar, or a list with the type of its count. */
export interface Property {
  name: string;
  type: string;
  /** Type of the count of a list property. */
  countType?: string;
}

/** One element of the header (vertex, face, …) with its record count. */
export interface Element {
  name: string;
  count: number;
  properties: Property[];
}

/** The parsed header of a PLY file. */
export interface Header {
  format: 'ascii' | 'binary_little_endian' | 'binary_big_endian';
  elements: Element[];
  /** Offset of the first data byte. */
  dataStart: number;
}

/** Reads and checks the header: format, elements and their properties, where the data starts. */
export function readPlyHeader(bytes: Uint8Array): Header {
  const magic = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4)).toString('latin1');
  if (!/^ply\s/.test(magic)) {
    throw plyError(
      bytes.length < 4
        ? 'the file is truncated (it ends in the header)'
        : 'the file does not start with `ply`',
    );
  }
  const end = findEndHeader(bytes);
  if (!end) throw plyError('the file is truncated (its header has no `end_header`)');
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, end.lineStart)
    .toString('latin1')
    .split(/\r?\n|\r/);
  let format: Header['format'] | undefined;
  const elements: Element[] = [];
  for (const line of lines.slice(1)) {
    const words = line.trim().split(/\s+/);
    switch (words[0]) {
      case 'format':
        if (words[1] !== 'ascii' && words[1] !== 'binary_little_endian' && words[1] !== 'binary_big_endian')
          throw plyError(`unknown format \`${words[1] ?? ''}\``);
        format = words[1];
        break;
      case 'element': {
        const count = Number(words[2]);
        if (!words[1] || !Number.isSafeInteger(count) || count < 0)
          throw plyError(`the header is damaged (\`${line.trim()}\`)`);
        elements.push({ name: words[1], count, properties: [] });
        break;
      }
      case 'property': {
        const element = elements.at(-1);
        const list = words[1] === 'list';
        const property: Property = list
          ? { countType: words[2], type: words[3], name: words[4] }
          : { type: words[1], name: words[2] };
        if (
          !element ||
          !property.name ||
          TYPE_BYTES[property.type] === undefined ||
          (list && TYPE_BYTES[property.countType!] === undefined)
        )
          throw plyError(`the header is damaged (\`${line.trim()}\`)`);
        element.properties.push(property);
        break;
      }
      case 'comment':
      case 'obj_info':
      case '':
        break;
      default:
        // Some writers put free text in the header (Blender 2.4 wrote its name there); it carries no data.
        break;
    }
  }
  if (!format) throw plyError('the header names no format');
  return { format, elements, dataStart: end.dataStart };
}

/** Where `end_header` is: the start of its line and of the data after it; undefined when the header never ends. */
function findEndHeader(bytes: Uint8Array): { lineStart: number; dataStart: number } | undefined {
  const marker = Buffer.from('end_header');
  const limit = Math.min(bytes.length, 1 << 20);
  let at = Buffer.from(bytes.buffer, bytes.byteOffset, limit).indexOf(marker);
  while (at >= 0) {
    const before = at === 0 ? 0x0a : bytes[at - 1];
    let after = at + marker.length;
    while (after < limit && (bytes[after] === 0x20 || bytes[after] === 0x09)) after++;
    if ((before === 0x0a || before === 0x0d) && after < bytes.length) {
      if (bytes[after] === 0x0d && bytes[after + 1] === 0x0a) return { lineStart: at, dataStart: after + 2 };
      if (bytes[after] === 0x0a || bytes[after] === 0x0d) return { lineStart: at, dataStart: after + 1 };
    }
    at = Buffer.from(bytes.buffer, bytes.byteOffset, limit).indexOf(marker, at + 1);
  }
  return undefined;
}
