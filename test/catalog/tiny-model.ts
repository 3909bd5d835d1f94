import { Document, NodeIO } from '@gltf-transform/core';

/**
 * A GLB of two one-triangle parts built in code: `Shared` carries `extras.group_id` (so every upload of it
 * shares that group, as re-uploads of an IFC do) and `Plain` has none (so it gets `<model id>:1`).
 */
export async function twoPartGlb(sharedGroupId: string): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  const triangle = (name: string, offset: number) => {
    const position = document
      .createAccessor(`${name}-position`)
      .setType('VEC3')
      .setArray(new Float32Array([offset, 0, 0, offset + 1, 0, 0, offset, 1, 0]))
      .setBuffer(buffer);
    const primitive = document.createPrimitive().setAttribute('POSITION', position);
    return document.createMesh(name).addPrimitive(primitive);
  };
  scene.addChild(
    document.createNode('Shared').setMesh(triangle('Shared', 0)).setExtras({ group_id: sharedGroupId }),
  );
  scene.addChild(document.createNode('Plain').setMesh(triangle('Plain', 2)));
  return new NodeIO().writeBinary(document);
}
