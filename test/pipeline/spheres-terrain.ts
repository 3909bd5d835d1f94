import type { Document } from '@gltf-transform/core';
import { emptyDocument } from './documents.ts';

/** Side of the square terrain, in metres. */
export const TERRAIN_SIZE = 100;

/** Spheres along each side of the terrain: 16 in all. */
export const SPHERES_PER_SIDE = 4;

/** Radius of each sphere, in metres. */
export const SPHERE_RADIUS = 5;

/** Height of the terrain at (x, z): rolling hills up to 3 m, smooth, so its error tells the simplifier's work. */
export function terrainHeight(x: number, z: number): number {
  return 1.5 * Math.sin(x * 0.11) * Math.cos(z * 0.07) + 1.5 * Math.sin((x + z) * 0.045);
}

/** Where the sphere `index` (0 to 15) stands: its centre, resting on the terrain. */
export function sphereCentre(index: number): [number, number, number] {
  const step = TERRAIN_SIZE / SPHERES_PER_SIDE;
  const x = (index % SPHERES_PER_SIDE) * step + step / 2;
  const z = Math.floor(index / SPHERES_PER_SIDE) * step + step / 2;
  return [x, terrainHeight(x, z) + SPHERE_RADIUS, z];
}

/**
 * A model of about `triangles` triangles, half of them a square terrain of rolling hills (one part, `Terrain`),
 * half sixteen spheres standing on it (`Sphere 0` to `Sphere 15`, a part each), with normals: the scene the tile
 * tests and benchmarks tile. Built from typed arrays, so tens of millions of triangles take seconds.
 */
export function spheresAndTerrain(triangles: number): Document {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const scene = document.getRoot().listScenes()[0];
  const add = (
    name: string,
    mesh: { positions: Float32Array; normals: Float32Array; indices: Uint32Array },
  ) => {
    const accessor = (array: Float32Array | Uint32Array, type: 'VEC3' | 'SCALAR') =>
      document
        .createAccessor()
        .setType(type)
        .setArray(array as Float32Array<ArrayBuffer>)
        .setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor(mesh.positions, 'VEC3'))
      .setAttribute('NORMAL', accessor(mesh.normals, 'VEC3'))
      .setIndices(accessor(mesh.indices, 'SCALAR'))
      .setMaterial(document.createMaterial(name).setBaseColorFactor([0.6, 0.6, 0.6, 1]));
    scene.addChild(document.createNode(name).setMesh(document.createMesh(name).addPrimitive(primitive)));
  };
  add('Terrain', terrainGrid(Math.max(2, Math.round(Math.sqrt(triangles / 4)))));
  const spheres = SPHERES_PER_SIDE * SPHERES_PER_SIDE;
  // A sphere of `rings` rings and twice as many segments has about 4 × rings² triangles.
  const rings = Math.max(4, Math.round(Math.sqrt(triangles / 2 / spheres / 4)));
  for (let index = 0; index < spheres; index++) add(`Sphere ${index}`, sphere(sphereCentre(index), rings));
  return document;
}

/** A `cells` × `cells` grid over the terrain, two triangles a cell, normals from the height's slope. */
function terrainGrid(cells: number) {
  const row = cells + 1;
  const positions = new Float32Array(row * row * 3);
  const normals = new Float32Array(row * row * 3);
  const step = TERRAIN_SIZE / cells;
  for (let j = 0; j <= cells; j++) {
    for (let i = 0; i <= cells; i++) {
      const at = (j * row + i) * 3;
      const x = i * step;
      const z = j * step;
      const y = terrainHeight(x, z);
      positions[at] = x;
      positions[at + 1] = y;
      positions[at + 2] = z;
      const dx = (terrainHeight(x + 0.01, z) - y) / 0.01;
      const dz = (terrainHeight(x, z + 0.01) - y) / 0.01;
      const length = Math.hypot(dx, 1, dz);
      normals[at] = -dx / length;
      normals[at + 1] = 1 / length;
      normals[at + 2] = -dz / length;
    }
  }
  const indices = new Uint32Array(cells * cells * 6);
  let k = 0;
  for (let j = 0; j < cells; j++) {
    for (let i = 0; i < cells; i++) {
      const a = j * row + i;
      indices.set([a, a + row, a + 1, a + 1, a + row, a + row + 1], k);
      k += 6;
    }
  }
  return { positions, normals, indices };
}

/** A UV sphere of `rings` rings and twice as many segments around `centre`. */
function sphere(centre: [number, number, number], rings: number) {
  const segments = 2 * rings;
  const row = segments + 1;
  const positions = new Float32Array((rings + 1) * row * 3);
  const normals = new Float32Array((rings + 1) * row * 3);
  for (let ring = 0; ring <= rings; ring++) {
    const theta = (ring / rings) * Math.PI;
    for (let segment = 0; segment <= segments; segment++) {
      const phi = (segment / segments) * Math.PI * 2;
      const at = (ring * row + segment) * 3;
      const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)];
      for (let axis = 0; axis < 3; axis++) {
        normals[at + axis] = n[axis];
        positions[at + axis] = centre[axis] + n[axis] * SPHERE_RADIUS;
      }
    }
  }
  const indices = new Uint32Array((rings - 1) * segments * 6);
  let k = 0;
  for (let ring = 0; ring < rings; ring++) {
    for (let segment = 0; segment < segments; segment++) {
      const a = ring * row + segment;
      const b = a + row;
      if (ring !== 0) indices.set([a, b, a + 1], (k += 3) - 3);
      if (ring !== rings - 1) indices.set([a + 1, b, b + 1], (k += 3) - 3);
    }
  }
  return { positions, normals, indices: indices.subarray(0, k) };
}
