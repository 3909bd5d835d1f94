// A GLB of unit cubes side by side, one part each, built in code so browser tests upload something tiny.
import type { Node, Scene } from '@gltf-transform/core';
import { Document, NodeIO } from '@gltf-transform/core';

const FACES: { normal: [number, number, number]; corners: [number, number, number][] }[] = [
  {
    normal: [1, 0, 0],
    corners: [
      [1, -1, -1],
      [1, 1, -1],
      [1, 1, 1],
      [1, -1, 1],
    ],
  },
  {
    normal: [-1, 0, 0],
    corners: [
      [-1, -1, 1],
      [-1, 1, 1],
      [-1, 1, -1],
      [-1, -1, -1],
    ],
  },
  {
    normal: [0, 1, 0],
    corners: [
      [-1, 1, -1],
      [-1, 1, 1],
      [1, 1, 1],
      [1, 1, -1],
    ],
  },
  {
    normal: [0, -1, 0],
    corners: [
      [-1, -1, 1],
      [-1, -1, -1],
      [1, -1, -1],
      [1, -1, 1],
    ],
  },
  {
    normal: [0, 0, 1],
    corners: [
      [-1, -1, 1],
      [1, -1, 1],
      [1, 1, 1],
      [-1, 1, 1],
    ],
  },
  {
    normal: [0, 0, -1],
    corners: [
      [1, -1, -1],
      [-1, -1, -1],
      [-1, 1, -1],
      [1, 1, -1],
    ],
  },
];

/**
 * Cubes of half-size 0.5 named `names`, each 1.5 apart along x, with normals and no material. A cube named in
 * `assemblyOf` sits in a node of that name (an assembly, at the origin) rather than at the scene's top.
 */
export async function cubesGlb(
  names: string[],
  assemblyOf: Readonly<Record<string, string>> = {},
): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  const assemblies = new Map<string, Node>();
  const parentOf = (name: string): Scene | Node => {
    const assembly = assemblyOf[name];
    if (assembly === undefined) return scene;
    let node = assemblies.get(assembly);
    if (!node) {
      node = document.createNode(assembly);
      scene.addChild(node);
      assemblies.set(assembly, node);
    }
    return node;
  };
  names.forEach((name, index) => {
    const positions: number[] = [];
    const normals: number[] = [];
    const indices: number[] = [];
    for (const face of FACES) {
      const base = positions.length / 3;
      for (const corner of face.corners) {
        positions.push(...corner.map((value) => value * 0.5));
        normals.push(...face.normal);
      }
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
    const accessor = (
      suffix: string,
      type: 'VEC3' | 'SCALAR',
      array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
    ) => document.createAccessor(`${name}-${suffix}`).setType(type).setArray(array).setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor('position', 'VEC3', new Float32Array(positions)))
      .setAttribute('NORMAL', accessor('normal', 'VEC3', new Float32Array(normals)))
      .setIndices(accessor('indices', 'SCALAR', new Uint16Array(indices)));
    const mesh = document.createMesh(name).addPrimitive(primitive);
    parentOf(name).addChild(
      document
        .createNode(name)
        .setMesh(mesh)
        .setTranslation([index * 1.5, 0, 0]),
    );
  });
  return new NodeIO().writeBinary(document);
}
