/** A growing list of triangles as vertex index triples, handed over as one array of its final length. */
export class TriangleList {
  indices: Uint32Array<ArrayBuffer>;
  count = 0;
  constructor(expected = 1024) {
    this.indices = new Uint32Array(Math.max(3, expected * 3));
  }
  /** Appends one triangle; zero-area ones are kept, as the file has them (exports round-trip). */
  add(a: number, b: number, c: number): void {
    if (this.count * 3 + 3 > this.indices.length) {
      const grown = new Uint32Array(Math.ceil(this.indices.length * 1.5) + 3);
      grown.set(this.indices);
      this.indices = grown;
    }
    const at = this.count * 3;
    this.indices[at] = a;
    this.indices[at + 1] = b;
    this.indices[at + 2] = c;
    this.count++;
  }
  /** The triangles' indices. */
  take(): Uint32Array<ArrayBuffer> {
    return this.indices.length === this.count * 3 ? this.indices : this.indices.slice(0, this.count * 3);
  }
}
