import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { assertLadder, glbJson } from '../helpers/ladder-checks.ts';
import { MODELS, quietLogger, readGlb, tempDir } from './documents.ts';

/** 1,148 triangles with 2048² base colour, normal and metallic-roughness PNGs. */
const BARREL: ImportSource = {
  file: path.join(MODELS, 'glb/barrel.glb'),
  dir: path.join(MODELS, 'glb'),
  format: 'glb',
};

/** The pixels of a document's texture in `slot`, as 8-bit RGB. */
async function slotPixels(glb: Uint8Array, slot: string): Promise<{ data: Buffer; width: number }> {
  const document = await readGlb(glb);
  const material = document.getRoot().listMaterials()[0];
  const texture = slot === 'normal' ? material.getNormalTexture() : material.getBaseColorTexture();
  const { data, info } = await sharp(texture!.getImage()!)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width };
}

void test('the barrel is served compressed, LOD 0 exact, with its textures on the ladder', async () => {
  const plain = await convertModel({ modelId: 'barrel', source: BARREL, logger: quietLogger });
  const served = await convertModel({
    modelId: 'barrel',
    source: BARREL,
    logger: quietLogger,
    compressLods: 'meshopt',
    lodTextures: 'webp',
  });
  // Plain, the barrel's smaller levels save too few bytes beside its textures and LOD 0 stands in for them:
  // the triangles compare with plain levels kept whatever they save.
  const simplified = await convertModel({
    modelId: 'barrel',
    source: BARREL,
    logger: quietLogger,
    levelByteShares: [1, 1],
  });
  const square = { width: 2048, height: 2048 };
  await assertLadder(
    served.lods.map((lod) => lod.glb),
    plain.lods[0].glb,
    [square, square, square],
    served.lods.map((lod) => lod.reduced ?? null),
  );

  // LOD 0 keeps its 2048² maps (the normal and metallic-roughness maps exact): half; the smaller levels: a third.
  for (const [level, lod] of served.lods.entries()) {
    assert.ok(
      lod.glb.byteLength < plain.lods[level].glb.byteLength / (level === 0 ? 2 : 3),
      `LOD ${level}: ${lod.glb.byteLength} B served, ${plain.lods[level].glb.byteLength} B plain`,
    );
    assert.equal(
      lod.triangle_count,
      simplified.lods[level].triangle_count,
      `LOD ${level} keeps its triangles`,
    );
  }
  const sizes = served.lods.map((lod) => lod.glb.byteLength);
  assert.ok(sizes[0] > sizes[1] && sizes[1] > sizes[2], `bytes fall with the level: ${sizes.join(', ')}`);

  // Lossless WebP keeps the normal map exact: lossy WebP's 4:2:0 chroma would move its values by up to 139.
  const source = await slotPixels(plain.lods[0].glb, 'normal');
  const lod0 = await slotPixels(served.lods[0].glb, 'normal');
  assert.equal(lod0.width, source.width);
  let worst = 0;
  for (let i = 0; i < source.data.length; i++)
    worst = Math.max(worst, Math.abs(source.data[i] - lod0.data[i]));
  assert.equal(worst, 0, `LOD 0 normal map as the source (worst difference ${worst})`);

  // A served level uploaded again (quantized, meshopt, WebP) passes the GLB checks and converts.
  const folder = await tempDir();
  try {
    const file = path.join(folder.dir, 'barrel-lod2.glb');
    await writeFile(file, served.lods[2].glb);
    const again = await convertModel({
      modelId: 'again',
      source: { file, dir: folder.dir, format: 'glb' },
      logger: quietLogger,
    });
    assert.equal(again.triangle_count, served.lods[2].triangle_count);
    assert.equal(again.lods.length, 3);
  } finally {
    await folder.remove();
  }
});

void test('GLB_COMPRESSION=none with source textures still writes plain levels', async () => {
  const plain = await convertModel({
    modelId: 'barrel',
    source: BARREL,
    logger: quietLogger,
    compressLods: 'none',
    lodTextures: 'source',
  });
  for (const lod of plain.lods) {
    const used = glbJson(lod.glb).extensionsUsed ?? [];
    assert.ok(!used.includes('EXT_meshopt_compression'), `LOD ${lod.level} is not compressed`);
    assert.ok(!used.includes('EXT_texture_webp'), `LOD ${lod.level} keeps its PNGs`);
  }
});
