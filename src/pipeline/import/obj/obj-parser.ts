import { AsciiReader } from '../ascii-numbers.ts';
import { checkTriangleLimit } from '../../limits.ts';
import { CornerSet } from './obj-corners.ts';
import type { ObjVertexData } from './obj-corners.ts';
import { triangulatePolygon } from '../triangulate-polygon.ts';
import { grow, growInt, nextLine, skipBlanks, wordEnds } from './obj-scan.ts';

/** One `o`/`g` of the file: its triangles by material name (`''` when no `usemtl` was given). */
export interface ObjPart {
  name: string;
  /** Whether an `o` (object) or a `g` (group) started it; faces before either start an unnamed object. */
  kind: 'object' | 'group';
  primitives: Map<string, CornerSet>;
}

/** Everything read from an OBJ file. */
export interface ObjModel {
  data: ObjVertexData;
  /** Number of `v` statements. */
  vertexCount: number;
  /** Parts in file order, empty ones included. */
  parts: ObjPart[];
  /** Names given by `mtllib`, in file order. */
  materialLibraries: string[];
  /** Triangles after polygons are cut. */
  triangles: number;
  /** `l` and `p` statements (and faces of fewer than three corners), which are not converted. */
  skippedLinesAndPoints: number;
  /** Statements of other kinds that were ignored, by keyword (at most a few keywords are kept). */
  ignored: Map<string, number>;
}

/** A statement the parser cannot read, at an offset of the file. */
export class ObjSyntaxError extends Error {
  constructor(
    readonly fileOffset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Keywords that carry nothing a mesh needs and are skipped without a warning. */
const SILENT = new Set(['s', 'mg', 'lod', 'bevel', 'c_interp', 'd_interp', 'shadow_obj', 'trace_obj']);
/** Distinct ignored keywords remembered for the warning: a binary file read as text would have thousands. */
const MAX_IGNORED_KEYWORDS = 8;
const MAX_VERTEX_VALUES = 7;
const decoder = new TextDecoder();

/**
 * Parses OBJ statements from chunks of whole lines (see `line-chunks.ts`), straight from the bytes: vertices
 * with optional colours, texture coordinates, normals, faces in every index form (relative ones too) with
 * polygons cut by earcut, `o`/`g` parts and `usemtl` materials. Each part and material keeps its own compact
 * vertex set ({@link CornerSet}); the file-wide lists hold only what the file declares.
 */
export class ObjParser {
  private positions = new Float32Array(3 * 4096);
  private colors: Float32Array<ArrayBuffer> | undefined;
  private uvs = new Float32Array(2 * 1024);
  private normals = new Float32Array(3 * 1024);
  private vertexCount = 0;
  private uvCount = 0;
  private normalCount = 0;
  private readonly parts: ObjPart[] = [];
  private readonly partsByName = new Map<string, ObjPart>();
  private part: ObjPart | undefined;
  private material = '';
  private target: CornerSet | undefined;
  private triangles = 0;
  private skipped = 0;
  private readonly ignored = new Map<string, number>();
  private readonly libraries: string[] = [];
  private readonly values = new Float64Array(MAX_VERTEX_VALUES);
  /** v, vt, vn (0-based, -1 when absent) of each corner of the face being read. */
  private corners = new Int32Array(3 * 64);
  /** Vertices of the face's corners in the target set. */
  private local = new Int32Array(64);
  /** Where {@link readIndex} stopped. */
  private cursor = 0;
  private fileOffset = 0;

  /** @param maxTriangles fails as soon as the faces read so far exceed it. */
  constructor(private readonly maxTriangles = Infinity) {}

  /** Reads the statements of `bytes[0 … end)`, whole lines that start at `fileOffset` in the file. */
  parse(bytes: Uint8Array, end: number, fileOffset: number): void {
    this.fileOffset = fileOffset;
    const reader = new AsciiReader(bytes, 0, end);
    let at = 0;
    while (at < end) {
      let c = bytes[at];
      while (c <= 0x20 && at < end) c = bytes[++at];
      if (at >= end) break;
      if (c === 0x76 /* v */) {
        const next = bytes[at + 1];
        if (next <= 0x20 || at + 1 >= end) at = this.vertex(bytes, reader, at + 1, end);
        else if (next === 0x74 /* t */ && wordEnds(bytes, at + 2, end))
          at = this.texcoord(bytes, reader, at + 2, end, at);
        else if (next === 0x6e /* n */ && wordEnds(bytes, at + 2, end))
          at = this.normal(bytes, reader, at + 2, end, at);
        else at = this.statement(bytes, at, end);
      } else if (c === 0x66 /* f */ && wordEnds(bytes, at + 1, end)) {
        at = this.face(bytes, at + 1, end, at);
      } else if (c === 0x23 /* # */) {
        at = nextLine(bytes, at, end);
      } else {
        at = this.statement(bytes, at, end);
      }
    }
  }

  /** What was read; the parser is not used afterwards. */
  finish(): ObjModel {
    return {
      data: { positions: this.positions, colors: this.colors, uvs: this.uvs, normals: this.normals },
      vertexCount: this.vertexCount,
      parts: this.parts,
      materialLibraries: this.libraries,
      triangles: this.triangles,
      skippedLinesAndPoints: this.skipped,
      ignored: this.ignored,
    };
  }

  private vertex(bytes: Uint8Array, reader: AsciiReader, at: number, end: number): number {
    const start = at - 1;
    const count = this.readNumbers(bytes, reader, at, end, 3, '`v` needs x, y and z', start);
    if (this.vertexCount * 3 + 3 > this.positions.length) this.growVertices();
    const values = this.values;
    const to = this.vertexCount * 3;
    // Four values are a homogeneous point (x y z w); six or seven carry a colour.
    const w = count === 4 && values[3] !== 0 ? values[3] : 1;
    this.positions[to] = values[0] / w;
    this.positions[to + 1] = values[1] / w;
    this.positions[to + 2] = values[2] / w;
    if (count >= 6) {
      this.colors ??= new Float32Array(this.positions.length).fill(1);
      this.colors[to] = values[3];
      this.colors[to + 1] = values[4];
      this.colors[to + 2] = values[5];
    }
    this.vertexCount++;
    return this.cursor;
  }

  private texcoord(bytes: Uint8Array, reader: AsciiReader, at: number, end: number, start: number): number {
    const count = this.readNumbers(bytes, reader, at, end, 1, '`vt` needs u', start);
    if (this.uvCount * 2 + 2 > this.uvs.length) this.uvs = grow(this.uvs);
    this.uvs[this.uvCount * 2] = this.values[0];
    this.uvs[this.uvCount * 2 + 1] = count > 1 ? this.values[1] : 0;
    this.uvCount++;
    return this.cursor;
  }

  private normal(bytes: Uint8Array, reader: AsciiReader, at: number, end: number, start: number): number {
    this.readNumbers(bytes, reader, at, end, 3, '`vn` needs x, y and z', start);
    if (this.normalCount * 3 + 3 > this.normals.length) this.normals = grow(this.normals);
    this.normals.set(this.values.subarray(0, 3), this.normalCount * 3);
    this.normalCount++;
    return this.cursor;
  }

  /** Reads up to seven numbers of one line into `values`, leaving {@link cursor} at the next line; returns how many. */
  private readNumbers(
    bytes: Uint8Array,
    reader: AsciiReader,
    at: number,
    end: number,
    required: number,
    reason: string,
    start: number,
  ): number {
    let count = 0;
    for (;;) {
      at = skipBlanks(bytes, at, end);
      if (at >= end || bytes[at] === 0x0a || bytes[at] === 0x23 || count === MAX_VERTEX_VALUES) break;
      reader.offset = at;
      const value = reader.number();
      if (Number.isNaN(value)) {
        if (count >= required) break;
        throw this.damaged(start, reason);
      }
      this.values[count++] = value;
      at = reader.offset;
    }
    if (count < required) throw this.damaged(start, reason);
    this.cursor = nextLine(bytes, at, end);
    return count;
  }

  private face(bytes: Uint8Array, at: number, end: number, start: number): number {
    let count = 0;
    for (;;) {
      at = skipBlanks(bytes, at, end);
      if (at >= end || bytes[at] === 0x0a || bytes[at] === 0x23) break;
      const v = this.readIndex(bytes, at, end);
      at = this.cursor;
      let vt = Number.NaN;
      let vn = Number.NaN;
      if (at < end && bytes[at] === 0x2f) {
        at++;
        if (bytes[at] !== 0x2f) {
          vt = this.readIndex(bytes, at, end);
          at = this.cursor;
        }
        if (at < end && bytes[at] === 0x2f) {
          vn = this.readIndex(bytes, at + 1, end);
          at = this.cursor;
        }
      }
      if (at < end && bytes[at] > 0x20 && bytes[at] !== 0x23) {
        throw this.damaged(start, 'a face corner is not v, v/vt, v//vn or v/vt/vn');
      }
      if (count * 3 + 3 > this.corners.length) this.corners = growInt(this.corners);
      this.corners[count * 3] = this.resolve(v, this.vertexCount, 'vertex', start, false);
      this.corners[count * 3 + 1] = this.resolve(vt, this.uvCount, 'texture coordinate', start, true);
      this.corners[count * 3 + 2] = this.resolve(vn, this.normalCount, 'normal', start, true);
      count++;
    }
    const next = nextLine(bytes, at, end);
    if (count < 3) {
      this.skipped++;
      return next;
    }
    this.addFace(count);
    return next;
  }

  /** Adds the face held in {@link corners} to the current part and material, cutting polygons into triangles. */
  private addFace(count: number): void {
    const target = (this.target ??= this.currentTarget());
    const corners = this.corners;
    if (count === 3) {
      const a = target.add(corners[0], corners[1], corners[2]);
      const b = target.add(corners[3], corners[4], corners[5]);
      const c = target.add(corners[6], corners[7], corners[8]);
      target.triangles.add(a, b, c);
      this.triangles++;
    } else {
      if (count > this.local.length) this.local = new Int32Array(count * 2);
      const local = this.local;
      const points = new Float64Array(count * 3);
      for (let i = 0; i < count; i++) {
        local[i] = target.add(corners[i * 3], corners[i * 3 + 1], corners[i * 3 + 2]);
        const v = corners[i * 3] * 3;
        points[i * 3] = this.positions[v];
        points[i * 3 + 1] = this.positions[v + 1];
        points[i * 3 + 2] = this.positions[v + 2];
      }
      const triangles = triangulatePolygon(points);
      if (triangles.length > 0) {
        for (let t = 0; t < triangles.length; t += 3) {
          target.triangles.add(local[triangles[t]], local[triangles[t + 1]], local[triangles[t + 2]]);
        }
        this.triangles += triangles.length / 3;
      } else {
        // Every corner on a line: kept as a fan of zero-area triangles, as many as the polygon has.
        for (let i = 2; i < count; i++) target.triangles.add(local[0], local[i - 1], local[i]);
        this.triangles += count - 2;
      }
    }
    if (this.triangles > this.maxTriangles) checkTriangleLimit(this.triangles, this.maxTriangles);
  }

  /** A 1-based or negative (counted back from the last) reference as a 0-based index, -1 when absent. */
  private resolve(reference: number, count: number, what: string, start: number, optional: boolean): number {
    if (Number.isNaN(reference)) {
      if (optional) return -1;
      throw this.damaged(start, 'a face corner has no vertex');
    }
    // Some writers give `vt`/`vn` indices without writing any texture coordinates or normals; they mean nothing.
    if (optional && count === 0) return -1;
    const index = reference < 0 ? count + reference : reference - 1;
    if (reference === 0 || index < 0 || index >= count) {
      throw this.damaged(
        start,
        `a face refers to ${what} ${reference}; there ${count === 1 ? 'is' : 'are'} ${count.toLocaleString('en-US')}`,
      );
    }
    return index;
  }

  /** A signed decimal integer, or NaN when there are no digits; {@link cursor} is left after it. */
  private readIndex(bytes: Uint8Array, at: number, end: number): number {
    let c = bytes[at];
    let negative = false;
    if (c === 0x2d || c === 0x2b) {
      negative = c === 0x2d;
      c = bytes[++at];
    }
    let value = 0;
    let digits = 0;
    while (at < end && c >= 0x30 && c <= 0x39) {
      value = value * 10 + (c - 0x30);
      digits++;
      c = bytes[++at];
    }
    this.cursor = at;
    if (digits === 0) return Number.NaN;
    return negative ? -value : value;
  }

  /** Any statement other than `v`, `vt`, `vn`, `f` and comments. */
  private statement(bytes: Uint8Array, at: number, end: number): number {
    let wordEnd = at;
    while (wordEnd < end && bytes[wordEnd] > 0x20) wordEnd++;
    const keyword = decoder.decode(bytes.subarray(at, Math.min(wordEnd, at + 32)));
    const next = nextLine(bytes, wordEnd, end);
    const rest = () => decoder.decode(bytes.subarray(wordEnd, next)).trim();
    switch (keyword) {
      case 'o':
        this.startObject(rest());
        break;
      case 'g':
        this.startGroup(rest());
        break;
      case 'usemtl':
        this.material = rest();
        this.target = undefined;
        break;
      case 'mtllib':
        this.libraries.push(rest());
        break;
      case 'l':
      case 'p':
        this.skipped++;
        break;
      default:
        if (SILENT.has(keyword)) break;
        if (this.ignored.has(keyword) || this.ignored.size < MAX_IGNORED_KEYWORDS) {
          this.ignored.set(keyword, (this.ignored.get(keyword) ?? 0) + 1);
        }
    }
    return next;
  }

  /** `o`: an object of a name seen before continues, as assimp reads it. */
  private startObject(name: string): void {
    const existing = this.partsByName.get(name);
    if (existing) this.part = existing;
    else this.addPart(name, 'object');
    this.target = undefined;
  }

  /** `g`: a new part whenever the name changes, even to a name used before (each stays its own node). */
  private startGroup(name: string): void {
    if (this.part?.name === name) return;
    this.addPart(name, 'group');
    this.target = undefined;
  }

  private addPart(name: string, kind: ObjPart['kind']): ObjPart {
    const part: ObjPart = { name, kind, primitives: new Map() };
    this.parts.push(part);
    if (!this.partsByName.has(name)) this.partsByName.set(name, part);
    this.part = part;
    return part;
  }

  /** The corner set of the current part and material; faces before any `o`/`g` start an unnamed part. */
  private currentTarget(): CornerSet {
    const part = this.part ?? this.addPart('', 'object');
    let target = part.primitives.get(this.material);
    if (!target) {
      target = new CornerSet();
      part.primitives.set(this.material, target);
    }
    return target;
  }

  private growVertices(): void {
    this.positions = grow(this.positions);
    if (this.colors) {
      const colors = new Float32Array(this.positions.length).fill(1);
      colors.set(this.colors);
      this.colors = colors;
    }
  }

  private damaged(start: number, reason: string): ObjSyntaxError {
    return new ObjSyntaxError(this.fileOffset + start, reason);
  }
}
