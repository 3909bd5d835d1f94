/**
 * Merges bitwise-identical positions as they are read (-0 counts as 0), so a de-indexed mesh (an STL, one
 * corner triple per triangle) arrives indexed: about 6 bytes of positions per triangle instead of 36, and the
 * simplifier sees connected surfaces. An open-addressing hash table over the coordinates' bits.
 */
export class VertexWelder {
  /** x, y, z of each distinct vertex; only the first `count × 3` entries are in use. */
  positions: Float32Array<ArrayBuffer>;
  /** Distinct vertices so far. */
  count = 0;
  private bits: Uint32Array<ArrayBuffer>;
  private table: Int32Array;
  private mask: number;

  constructor(expectedVertices = 1024) {
    const capacity = Math.max(1024, expectedVertices);
    this.positions = new Float32Array(capacity * 3);
    this.bits = new Uint32Array(this.positions.buffer);
    const slots = 2 ** Math.ceil(Math.log2(capacity * 2));
    this.table = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
  }

  /** The index of the vertex at x, y, z, added when new. */
  add(x: number, y: number, z: number): number {
    if (this.count * 3 + 3 > this.positions.length) this.growPositions();
    const at = this.count * 3;
    const positions = this.positions;
    positions[at] = x === 0 ? 0 : x;
    positions[at + 1] = y === 0 ? 0 : y;
    positions[at + 2] = z === 0 ? 0 : z;
    const bits = this.bits;
    const bx = bits[at];
    const by = bits[at + 1];
    const bz = bits[at + 2];
    let slot = hash(bx, by, bz) & this.mask;
    const table = this.table;
    for (;;) {
      const index = table[slot];
      if (index < 0) break;
      const other = index * 3;
      if (bits[other] === bx && bits[other + 1] === by && bits[other + 2] === bz) return index;
      slot = (slot + 1) & this.mask;
    }
    table[slot] = this.count;
    this.count++;
    if (this.count * 2 > this.table.length) this.growTable();
    return this.count - 1;
  }

  /** The distinct positions, trimmed to their count (a copy, so the working arrays can be freed). */
  takePositions(): Float32Array<ArrayBuffer> {
    const result = this.positions.slice(0, this.count * 3);
    this.positions = new Float32Array(0);
    this.bits = new Uint32Array(0);
    this.table = new Int32Array(0);
    return result;
  }

  private growPositions(): void {
    const grown = new Float32Array(Math.max(3072, Math.ceil((this.positions.length * 1.5) / 3) * 3));
    grown.set(this.positions);
    this.positions = grown;
    this.bits = new Uint32Array(grown.buffer);
  }

  private growTable(): void {
    const slots = this.table.length * 2;
    const table = new Int32Array(slots).fill(-1);
    const mask = slots - 1;
    const bits = this.bits;
    for (let index = 0; index < this.count; index++) {
      const at = index * 3;
      let slot = hash(bits[at], bits[at + 1], bits[at + 2]) & mask;
      while (table[slot] >= 0) slot = (slot + 1) & mask;
      table[slot] = index;
    }
    this.table = table;
    this.mask = mask;
  }
}

/** Mixes the three coordinates' bits into every bit of the result (murmur3's finaliser): whole-number
 * coordinates have all-zero low bits, which a plain multiply would leave in one cluster of slots. */
function hash(x: number, y: number, z: number): number {
  let h =
    Math.imul(x, 0x9e3779b1) ^ Math.imul(y ^ (x >>> 15), 0x85ebca77) ^ Math.imul(z ^ (y >>> 13), 0xc2b2ae3d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
