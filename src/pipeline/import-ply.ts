import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AsciiReader } from './ascii-numbers.ts';
import { checkTriangleLimit } from './limits.ts';
import { meshDocument, srgbToLinear } from './mesh-document.ts';
import { TriangleList } from './triangle-list.ts';
import { triangulatePolygon } from './triangulate-polygon.ts';
import { ConversionError } from './types.ts';
import type { ImportResult, Importer, StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'import-ply';

const fail = (reason: string) => new ConversionError(`Could not read the PLY file: ${reason}`);

/** Bytes of each PLY scalar type. */
const TYPE_BYTES: Record<string, number> = {
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

interface Property {
  name: string;
  type: string;
  /** Type of the count of a list property. */
  countType?: string;
}

interface Element {
  name: string;
  count: number;
  properties: Property[];
}

interface Header {
  format: 'ascii' | 'binary_little_endian' | 'binary_big_endian';
  elements: Element[];
  /** Offset of the first data byte. */
  dataStart: number;
}

/** Elements reported per progress step. */
const REPORT_EVERY = 1 << 18;

/**
 * Reads ASCII and binary PLY in JavaScript from one copy of the file: positions, normals, vertex colours
 * (sRGB bytes or floats, made linear) and faces, polygons cut by earcut. A file with vertices and no faces
 * becomes a point cloud (a POINTS primitive with its colours). A cut-off file fails naming where it ends.
 */
export const importPly: Importer = {
  name: NAME,
  formats: ['ply'],
  async read(source, context) {
    const bytes = await readFile(source.file).catch(() => {
      throw fail('the file cannot be opened');
    });
    if (bytes.byteLength === 0) throw fail('the file is empty');
    const header = readHeader(bytes);
    const vertexElement = header.elements.find((element) => element.name === 'vertex');
    if (!vertexElement || vertexElement.count === 0) throw fail('no geometry found');
    const faceElement = header.elements.find((element) => element.name === 'face');
    if (faceElement) checkTriangleLimit(faceElement.count, context.maxTriangles);
    const data = readBody(bytes, header, context);
    const name = path.basename(source.file).replace(/\.[^.]+$/, '');
    const document = meshDocument({ name, ...data });
    const triangles = data.indices ? data.indices.length / 3 : 0;
    context.logger.debug(`${NAME}: ${vertexElement.count} vertices, ${triangles} triangles`);
    context.onProgress?.(1);
    return {
      document,
      sourceTriangleCount: triangles,
      sourceUnit: 'unknown',
      sourceUpAxis: 'unknown',
      welded: true,
    } satisfies ImportResult;
  },
};

function readHeader(bytes: Uint8Array): Header {
  const magic = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4)).toString('latin1');
  if (!/^ply\s/.test(magic)) {
    throw fail(
      bytes.length < 4
        ? 'the file is truncated (it ends in the header)'
        : 'the file does not start with `ply`',
    );
  }
  const end = findEndHeader(bytes);
  if (!end) throw fail('the file is truncated (its header has no `end_header`)');
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
          throw fail(`unknown format \`${words[1] ?? ''}\``);
        format = words[1];
        break;
      case 'element': {
        const count = Number(words[2]);
        if (!words[1] || !Number.isSafeInteger(count) || count < 0)
          throw fail(`the header is damaged (\`${line.trim()}\`)`);
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
          throw fail(`the header is damaged (\`${line.trim()}\`)`);
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
  if (!format) throw fail('the header names no format');
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

/** Reads one scalar of a PLY type at an offset. */
type ScalarReader = (view: DataView, offset: number) => number;

function scalarReader(type: string, little: boolean): ScalarReader {
  switch (TYPE_BYTES[type] === 1 ? type.replace('int8', 'char').replace('uchar', 'u8') : type) {
    case 'char':
      return (view, offset) => view.getInt8(offset);
    case 'u8':
    case 'uchar':
      return (view, offset) => view.getUint8(offset);
    case 'short':
    case 'int16':
      return (view, offset) => view.getInt16(offset, little);
    case 'ushort':
    case 'uint16':
      return (view, offset) => view.getUint16(offset, little);
    case 'int':
    case 'int32':
      return (view, offset) => view.getInt32(offset, little);
    case 'uint':
    case 'uint32':
      return (view, offset) => view.getUint32(offset, little);
    case 'float':
    case 'float32':
      return (view, offset) => view.getFloat32(offset, little);
    default:
      return (view, offset) => view.getFloat64(offset, little);
  }
}

/** Where each vertex property lands in the output arrays. */
interface VertexSlots {
  position: [number, number, number];
  normal?: [number, number, number];
  uv?: [number, number];
  color?: number[];
  /** Colours stored as bytes (0–255) rather than floats (0–1). */
  colorScale: number;
}

function vertexSlots(element: Element): VertexSlots {
  const index = (...names: string[]) =>
    element.properties.findIndex((property) => names.includes(property.name));
  const position: [number, number, number] = [index('x'), index('y'), index('z')];
  if (position.some((slot) => slot < 0)) throw fail('its vertices have no x, y, z');
  const normalSlots: [number, number, number] = [index('nx'), index('ny'), index('nz')];
  const colorSlots = [
    index('red', 'diffuse_red', 'r'),
    index('green', 'diffuse_green', 'g'),
    index('blue', 'diffuse_blue', 'b'),
  ];
  const alpha = index('alpha', 'diffuse_alpha', 'a');
  const uvSlots: [number, number] = [
    index('s', 'u', 'texture_u', 'texture_s'),
    index('t', 'v', 'texture_v', 'texture_t'),
  ];
  const hasColor = colorSlots.every((slot) => slot >= 0);
  const colorType = hasColor ? element.properties[colorSlots[0]].type : 'float';
  return {
    position,
    normal: normalSlots.every((slot) => slot >= 0) ? normalSlots : undefined,
    uv: uvSlots.every((slot) => slot >= 0) ? uvSlots : undefined,
    color: hasColor ? [...colorSlots, alpha] : undefined,
    colorScale:
      colorType.startsWith('float') || colorType === 'double' ? 1 : colorType.includes('short') ? 65535 : 255,
  };
}

interface PlyMesh {
  positions: Float32Array<ArrayBuffer>;
  normals?: Float32Array<ArrayBuffer>;
  uvs?: Float32Array<ArrayBuffer>;
  colors?: Float32Array<ArrayBuffer>;
  indices?: Uint32Array<ArrayBuffer>;
}

/** Reads every element in order, keeping vertices and faces; other elements are skipped. */
function readBody(bytes: Uint8Array, header: Header, context: StepContext): PlyMesh {
  const vertex = header.elements.find((element) => element.name === 'vertex')!;
  const slots = vertexSlots(vertex);
  const vertices = vertex.count;
  const positions = new Float32Array(vertices * 3);
  const normals = slots.normal ? new Float32Array(vertices * 3) : undefined;
  const colors = slots.color ? new Float32Array(vertices * 4) : undefined;
  const uvs = slots.uv ? new Float32Array(vertices * 2) : undefined;
  const faces = new FaceList(positions, vertices);
  const totalElements = header.elements.reduce((sum, element) => sum + element.count, 0);
  let elementsRead = 0;
  const progress = () => context.onProgress?.((elementsRead / totalElements) * 0.95);
  const source = header.format === 'ascii' ? asciiSource(bytes, header) : binarySource(bytes, header);

  for (const element of header.elements) {
    const values = new Float64Array(element.properties.length);
    const isVertex = element === vertex;
    const isFace = element.name === 'face';
    const faceProperty = isFace
      ? element.properties.findIndex(
          (property) => property.name === 'vertex_indices' || property.name === 'vertex_index',
        )
      : -1;
    if (isFace && faceProperty < 0) throw fail('its faces have no vertex_indices');
    for (let record = 0; record < element.count; record++) {
      for (let p = 0; p < element.properties.length; p++) {
        const property = element.properties[p];
        if (property.countType) {
          const list = source.list(property, element.name, record);
          if (p === faceProperty) faces.add(list, record);
        } else {
          values[p] = source.scalar(property, element.name, record);
        }
      }
      if (isVertex) {
        const at = record * 3;
        positions[at] = values[slots.position[0]];
        positions[at + 1] = values[slots.position[1]];
        positions[at + 2] = values[slots.position[2]];
        if (normals) {
          normals[at] = values[slots.normal![0]];
          normals[at + 1] = values[slots.normal![1]];
          normals[at + 2] = values[slots.normal![2]];
        }
        if (uvs) {
          // PLY texture coordinates start at the bottom of the image, glTF's at the top.
          uvs[record * 2] = values[slots.uv![0]];
          uvs[record * 2 + 1] = 1 - values[slots.uv![1]];
        }
        if (colors) {
          const [r, g, b, a] = slots.color!;
          const scale = slots.colorScale;
          colors[record * 4] = srgbToLinear(clamp01(values[r] / scale));
          colors[record * 4 + 1] = srgbToLinear(clamp01(values[g] / scale));
          colors[record * 4 + 2] = srgbToLinear(clamp01(values[b] / scale));
          colors[record * 4 + 3] = a >= 0 ? clamp01(values[a] / scale) : 1;
        }
      }
      if (++elementsRead % REPORT_EVERY === 0) progress();
    }
  }
  if (normals) normaliseNormals(normals);
  const indices = faces.take();
  return { positions, normals, uvs, colors, indices: indices.length > 0 ? indices : undefined };
}

function clamp01(value: number): number {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/** Zero or non-unit normals from the file made unit length (a zero normal points up), as glTF requires. */
function normaliseNormals(normals: Float32Array): void {
  for (let at = 0; at < normals.length; at += 3) {
    const length = Math.hypot(normals[at], normals[at + 1], normals[at + 2]);
    if (length > 0 && Number.isFinite(length)) {
      normals[at] /= length;
      normals[at + 1] /= length;
      normals[at + 2] /= length;
    } else {
      normals[at] = 0;
      normals[at + 1] = 1;
      normals[at + 2] = 0;
    }
  }
}

/** The faces as triangles; triangles pass straight through, larger polygons are cut by earcut. */
class FaceList {
  private readonly triangles = new TriangleList();
  constructor(
    private readonly positions: Float32Array,
    private readonly vertices: number,
  ) {}

  add(corners: ArrayLike<number>, face: number): void {
    for (let i = 0; i < corners.length; i++) {
      const corner = corners[i];
      if (!(corner >= 0 && corner < this.vertices && Number.isInteger(corner))) {
        throw fail(
          `the file is damaged (face ${face} refers to vertex ${corner}; there are ${this.vertices} vertices)`,
        );
      }
    }
    if (corners.length === 3) this.triangles.add(corners[0], corners[1], corners[2]);
    else if (corners.length > 3) {
      const points = new Float64Array(corners.length * 3);
      for (let i = 0; i < corners.length; i++) {
        points[i * 3] = this.positions[corners[i] * 3];
        points[i * 3 + 1] = this.positions[corners[i] * 3 + 1];
        points[i * 3 + 2] = this.positions[corners[i] * 3 + 2];
      }
      const triangles = triangulatePolygon(points);
      for (let t = 0; t < triangles.length; t += 3) {
        this.triangles.add(corners[triangles[t]], corners[triangles[t + 1]], corners[triangles[t + 2]]);
      }
    }
  }

  take(): Uint32Array<ArrayBuffer> {
    return this.triangles.take();
  }
}

/** Reads the values of the body in order, failing with where a cut-off file ends. */
interface ValueSource {
  scalar(property: Property, element: string, record: number): number;
  list(property: Property, element: string, record: number): ArrayLike<number>;
}

function truncatedAt(header: Header, element: string, record: number): ConversionError {
  const declared = header.elements.map((e) => `${e.count.toLocaleString('en-US')} ${e.name}`).join(', ');
  return fail(
    `the file is truncated: its header declares ${declared}; the data ends in ${element} ${record}`,
  );
}

function binarySource(bytes: Uint8Array, header: Header): ValueSource {
  const little = header.format === 'binary_little_endian';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const readers = new Map<string, ScalarReader>();
  const reader = (type: string) => {
    let found = readers.get(type);
    if (!found) readers.set(type, (found = scalarReader(type, little)));
    return found;
  };
  let offset = header.dataStart;
  const list: number[] = [];
  return {
    scalar(property, element, record) {
      const size = TYPE_BYTES[property.type];
      if (offset + size > bytes.length) throw truncatedAt(header, element, record);
      const value = reader(property.type)(view, offset);
      offset += size;
      return value;
    },
    list(property, element, record) {
      const countSize = TYPE_BYTES[property.countType!];
      if (offset + countSize > bytes.length) throw truncatedAt(header, element, record);
      const count = reader(property.countType!)(view, offset);
      offset += countSize;
      const size = TYPE_BYTES[property.type];
      if (count < 0 || offset + count * size > bytes.length) throw truncatedAt(header, element, record);
      const read = reader(property.type);
      list.length = count;
      for (let i = 0; i < count; i++) list[i] = read(view, offset + i * size);
      offset += count * size;
      return list;
    },
  };
}

function asciiSource(bytes: Uint8Array, header: Header): ValueSource {
  const text = new AsciiReader(bytes, header.dataStart);
  const list: number[] = [];
  const next = (element: string, record: number): number => {
    const value = text.number();
    if (Number.isNaN(value)) {
      if (!text.skipSpace()) throw truncatedAt(header, element, record);
      throw fail(`the file is damaged (${element} ${record} holds something other than a number)`);
    }
    return value;
  };
  return {
    scalar: (_property, element, record) => next(element, record),
    list(_property, element, record) {
      const count = next(element, record);
      if (!Number.isInteger(count) || count < 0)
        throw fail(`the file is damaged (${element} ${record} has a bad list)`);
      list.length = count;
      for (let i = 0; i < count; i++) list[i] = next(element, record);
      return list;
    },
  };
}
