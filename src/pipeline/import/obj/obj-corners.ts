import { TriangleList } from '../triangle-list.ts';

/** The file-wide vertex data of an OBJ that faces refer to by index. */
export interface ObjVertexData {
  /** x, y, z per `v`. */
  positions: Float32Array;
  /** sRGB r, g, b per `v`, when any `v` has a colour (white for those without). */
  colors?: Float32Array;
  /** u, v per `vt`, as the file has them (origin at the bottom of the image). */
  uvs: Float32Array;
  /** x, y, z per `vn`. */
  normals: Float32Array;
}

/** One primitive's own vertex arrays, gathered from the file-wide data. */
export interface CornerArrays {
  positions: Float32Array<ArrayBuffer>;
  /** Present when any corner names a `vn`; corners without one get a zero normal, repaired later. */
  normals?: Float32Array<ArrayBuffer>;
  /** Present when any corner names a `vt`; v flipped to glTF's top-left origin. */
  uvs?: Float32Array<ArrayBuffer>;
  /** sRGB r, g, b per vertex, when the file has vertex colours. */
  colors?: Float32Array<ArrayBuffer>;
  indices: Uint32Array<ArrayBuffer>;
}

/**
 * Corners and triangles a set makes room for at first. Every set lives until the file is read, and a model of many
 * parts is mostly small ones (a box: 8 corners, 12 triangles): room for 64 held 2 KB a part of tables, 200 MB at
 * 100,000 parts; a big part grows by doubling all the same. A power of two: the hash table masks its slots.
 */
const INITIAL_CAPACITY = 16;

/**
 * The triangles of one part and material with their own compact vertex set: every distinct `v/vt/vn` corner
 * becomes one vertex, found again through an open-addressing hash of the three indices. Only the indices are
 * kept while the file is read (12 bytes per vertex plus the table), so a part never holds a copy of the
 * file-wide vertex list; the attributes are gathered once, at the end.
 */
export class CornerSet {
  /** Triangles over this set's vertices. */
  readonly triangles = new TriangleList(INITIAL_CAPACITY);
  /** Distinct corners so far. */
  count = 0;
  private keys = new Int32Array(3 * INITIAL_CAPACITY);
  private table = new Int32Array(2 * INITIAL_CAPACITY).fill(-1);
  private mask = 2 * INITIAL_CAPACITY - 1;
  private anyUv = false;
  private anyNormal = false;

  /** The vertex of corner `v/vt/vn` (0-based; -1 for an absent `vt` or `vn`), added when new. */
  add(v: number, vt: number, vn: number): number {
    const keys = this.keys;
    const table = this.table;
    let slot = hash(v, vt, vn) & this.mask;
    for (;;) {
      const index = table[slot];
      if (index < 0) break;
      const at = index * 3;
      if (keys[at] === v && keys[at + 1] === vt && keys[at + 2] === vn) return index;
      slot = (slot + 1) & this.mask;
    }
    if (this.count * 3 + 3 > keys.length) this.growKeys();
    const at = this.count * 3;
    this.keys[at] = v;
    this.keys[at + 1] = vt;
    this.keys[at + 2] = vn;
    if (vt >= 0) this.anyUv = true;
    if (vn >= 0) this.anyNormal = true;
    table[slot] = this.count;
    this.count++;
    if (this.count * 2 > table.length) this.growTable();
    return this.count - 1;
  }

  /** The set's vertex arrays and triangles; the set's own tables are released. */
  take(data: ObjVertexData): CornerArrays {
    const count = this.count;
    const keys = this.keys;
    const positions = new Float32Array(count * 3);
    const normals = this.anyNormal ? new Float32Array(count * 3) : undefined;
    const uvs = this.anyUv ? new Float32Array(count * 2) : undefined;
    const colors = data.colors ? new Float32Array(count * 3) : undefined;
    for (let i = 0; i < count; i++) {
      const v = keys[i * 3] * 3;
      positions[i * 3] = data.positions[v];
      positions[i * 3 + 1] = data.positions[v + 1];
      positions[i * 3 + 2] = data.positions[v + 2];
      if (colors) {
        colors[i * 3] = data.colors![v];
        colors[i * 3 + 1] = data.colors![v + 1];
        colors[i * 3 + 2] = data.colors![v + 2];
      }
      const vt = keys[i * 3 + 1];
      if (uvs && vt >= 0) {
        uvs[i * 2] = data.uvs[vt * 2];
        // OBJ's v runs up from the bottom of the image, glTF's down from the top.
        uvs[i * 2 + 1] = 1 - data.uvs[vt * 2 + 1];
      }
      const vn = keys[i * 3 + 2];
      if (normals && vn >= 0) {
        normals[i * 3] = data.normals[vn * 3];
        normals[i * 3 + 1] = data.normals[vn * 3 + 1];
        normals[i * 3 + 2] = data.normals[vn * 3 + 2];
      }
    }
    // Released before the triangles are trimmed, which may copy them: the two need not be held at once.
    this.keys = new Int32Array(0);
    this.table = new Int32Array(0);
    const indices = this.triangles.take();
    return { positions, normals, uvs, colors, indices };
  }

  private growKeys(): void {
    const grown = new Int32Array(this.keys.length * 2);
    grown.set(this.keys);
    this.keys = grown;
  }

  private growTable(): void {
    const slots = this.table.length * 2;
    const table = new Int32Array(slots).fill(-1);
    const mask = slots - 1;
    const keys = this.keys;
    for (let index = 0; index < this.count; index++) {
      let slot = hash(keys[index * 3], keys[index * 3 + 1], keys[index * 3 + 2]) & mask;
      while (table[slot] >= 0) slot = (slot + 1) & mask;
      table[slot] = index;
    }
    this.table = table;
    this.mask = mask;
  }
}

/** Mixes three indices into every bit of the result; neighbouring indices must not share neighbouring slots. */
function hash(v: number, vt: number, vn: number): number {
  let h = Math.imul(v, 0x9e3779b1) ^ Math.imul(vt, 0x85ebca77) ^ Math.imul(vn, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}
