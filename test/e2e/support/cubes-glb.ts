// A GLB of unit cubes side by side, one part each, built in code so browser tests upload something tiny.
import type { Node, Scene } from '@gltf-transform/core';
import { Document, NodeIO } from '@gltf-transform/core';
import { boxArrays } from '../../helpers/box-arrays.ts';

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
    const box = boxArrays([1, 1, 1]);
    const accessor = (
      suffix: string,
      type: 'VEC3' | 'SCALAR',
      array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
    ) => document.createAccessor(`${name}-${suffix}`).setType(type).setArray(array).setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor('position', 'VEC3', box.positions))
      .setAttribute('NORMAL', accessor('normal', 'VEC3', box.normals))
      .setIndices(accessor('indices', 'SCALAR', box.indices));
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
