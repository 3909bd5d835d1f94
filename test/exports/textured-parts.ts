import { Document } from '@gltf-transform/core';
import sharp from 'sharp';
import { createNodeIO } from '../../src/gltf/create-io.ts';

/** Names of the parts of {@link texturedPartsGlb}, in the order of its nodes. */
export const TEXTURED_PARTS = ['Seat', 'Back', 'Legs'] as const;
/** One of {@link TEXTURED_PARTS}. */
export type TexturedPart = (typeof TEXTURED_PARTS)[number];

/** The group id {@link texturedPartsGlb} gives a part, under a prefix that keeps uploads apart. */
export function texturedPartGroup(prefix: string, part: TexturedPart): string {
  return `${prefix}-${part.toLowerCase()}`;
}

/**
 * A GLB of three quads side by side (`Seat`, `Back`, `Legs`), each with normals, UVs and one shared material with a
 * 4 × 4 checkered base colour texture, and `extras.group_id` from {@link texturedPartGroup}: small, yet every part has what a
 * real one has for a validator and a viewer to check.
 */
export async function texturedPartsGlb(prefix: string): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  // A checkerboard of two browns: a texture of one colour would be folded into the material's factor.
  const pixels = Buffer.alloc(4 * 4 * 3);
  for (let i = 0; i < 16; i++) pixels.set((i + (i >> 2)) % 2 ? [180, 140, 90] : [120, 80, 40], i * 3);
  const png = await sharp(pixels, { raw: { width: 4, height: 4, channels: 3 } })
    .png()
    .toBuffer();
  const texture = document.createTexture('wood').setImage(new Uint8Array(png)).setMimeType('image/png');
  const material = document.createMaterial('Wood').setBaseColorTexture(texture).setRoughnessFactor(0.8);
  const accessor = (type: 'VEC3' | 'VEC2', values: number[]) =>
    document.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  TEXTURED_PARTS.forEach((part, index) => {
    const x = index * 2;
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', [x, 0, 0, x + 1, 0, 0, x + 1, 1, 0, x, 1, 0]))
      .setAttribute('NORMAL', accessor('VEC3', [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]))
      .setAttribute('TEXCOORD_0', accessor('VEC2', [0, 1, 1, 1, 1, 0, 0, 0]))
      .setIndices(
        document
          .createAccessor()
          .setArray(new Uint16Array([0, 1, 2, 0, 2, 3]))
          .setBuffer(buffer),
      )
      .setMaterial(material);
    const mesh = document.createMesh(part).addPrimitive(primitive);
    scene.addChild(
      document
        .createNode(part)
        .setMesh(mesh)
        .setExtras({ group_id: texturedPartGroup(prefix, part) }),
    );
  });
  return (await createNodeIO()).writeBinary(document);
}
