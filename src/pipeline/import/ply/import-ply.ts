import path from 'node:path';
import { AsciiReader } from '../ascii-numbers.ts';
import { checkTriangleLimit } from '../../limits.ts';
import { meshDocument, srgbToLinear } from '../mesh-document.ts';
import { readFileInSteps } from '../read-file-in-steps.ts';
import { TriangleList } from '../triangle-list.ts';
import { triangulatePolygon } from '../triangulate-polygon.ts';
import { plyError as fail, readPlyHeader, TYPE_BYTES } from './ply-header.ts';
import type { Element, Header, Property } from './ply-header.ts';
import type { ConversionError, ImportResult, Importer, StepContext } from '../../types.ts';

/** Step name used in logs. */
export const NAME = 'import-ply';

/** Elements reported per progress step. */
const REPORT_EVERY = 1 << 18;

/** Share of the import's progress given to reading the file; parsing its elements is the rest, up to 95 %. */
const READ_SHARE = 0.1;

/**
 * Reads ASCII and binary PLY in JavaScript from one copy of the file: positions, normals, vertex colours
 * (sRGB bytes or floats, made linear) and faces, polygons cut by earcut. A file with vertices and no faces
 * becomes a point cloud (a POINTS primitive with its colours). A cut-off file fails naming where it ends.
 */
export const importPly: Importer = {
  name: NAME,
  formats: ['ply'],
  async read(source, context) {
    const bytes = await readFileInSteps(source.file, (read) => context.onProgress?.(read * READ_SHARE)).catch(
      () => {
        throw fail('the file cannot be opened');
      },
    );
    if (bytes.byteLength === 0) throw fail('the file is empty');
    const header = readPlyHeader(bytes);
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
  // Room for one triangle a face from the start (a triangle needs at least 4 bytes of the file, which bounds what
  // a lying header can ask for): growing a list of tens of millions copies it several times.
  const faceCount = header.elements.find((element) => element.name === 'face')?.count ?? 0;
  const faces = new FaceList(positions, vertices, Math.min(faceCount, Math.floor(bytes.byteLength / 4)));
  const totalElements = header.elements.reduce((sum, element) => sum + element.count, 0);
  let elementsRead = 0;
  const progress = () =>
    context.onProgress?.(READ_SHARE + (elementsRead / totalElements) * (0.95 - READ_SHARE));
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
  private readonly triangles: TriangleList;
  constructor(
    private readonly positions: Float32Array,
    private readonly vertices: number,
    expectedTriangles: number,
  ) {
    this.triangles = new TriangleList(expectedTriangles);
  }

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
