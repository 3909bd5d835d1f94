import { Document, NodeIO } from '@gltf-transform/core';

/**
 * Writes a GLB of one subdivided, gently waved grid of `cells` × `cells` quads (2 × cells² triangles). A large grid
 * converts slowly enough to catch the service in the middle of it; the waves keep simplification from collapsing it
 * in one step.
 */
export async function writeGridGlb(file: string, cells: number): Promise<void> {
  const side = cells + 1;
  const positions = new Float32Array(side * side * 3);
  for (let row = 0; row < side; row++) {
    for (let column = 0; column < side; column++) {
      const at = (row * side + column) * 3;
      const x = column / cells;
      const z = row / cells;
      positions[at] = x;
      positions[at + 1] = 0.02 * Math.sin(x * 40) * Math.cos(z * 40);
      positions[at + 2] = z;
    }
  }
  const indices = new Uint32Array(cells * cells * 6);
  let next = 0;
  for (let row = 0; row < cells; row++) {
    for (let column = 0; column < cells; column++) {
      const a = row * side + column;
      const b = a + 1;
      const c = a + side;
      const d = c + 1;
      indices.set([a, c, b, b, c, d], next);
      next += 6;
    }
  }
  const document = new Document();
  const buffer = document.createBuffer();
  const position = document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer);
  const index = document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer);
  const primitive = document.createPrimitive().setAttribute('POSITION', position).setIndices(index);
  const mesh = document.createMesh('Grid').addPrimitive(primitive);
  document.createScene('Scene').addChild(document.createNode('Grid').setMesh(mesh));
  await new NodeIO().write(file, document);
}
