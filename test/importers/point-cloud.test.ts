import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { pointCloudPly } from '../fixtures/point-cloud-ply.ts';
import { quietLogger, readGlb, tempDir, validationErrors } from '../pipeline/documents.ts';
import { decodeRgba, silhouette } from '../render/silhouette.ts';

void test('a PLY scan of 70,000 coloured points without faces converts to three point LODs and a thumbnail', async () => {
  const { dir, remove } = await tempDir();
  try {
    const file = path.join(dir, 'scan.ply');
    await writeFile(file, pointCloudPly(70_000));
    const result = await convertModel({
      modelId: 'scan',
      source: { file, dir, format: 'ply' },
      logger: quietLogger,
    });
    assert.equal(result.triangle_count, 0);
    assert.equal(result.vertex_count, 70_000);
    assert.deepEqual(
      result.parts.map(({ name, triangle_count, vertex_count }) => ({ name, triangle_count, vertex_count })),
      [{ name: 'scan', triangle_count: 0, vertex_count: 70_000 }],
    );
    const counts: number[] = [];
    for (const lod of result.lods) {
      assert.deepEqual(await validationErrors(lod.glb), [], `LOD ${lod.level}`);
      const primitive = (await readGlb(lod.glb)).getRoot().listMeshes()[0].listPrimitives()[0];
      assert.equal(primitive.getMode(), 0);
      const position = primitive.getAttribute('POSITION')!;
      const color = primitive.getAttribute('COLOR_0')!;
      counts.push(position.getCount());
      // Colours follow position (x → red, z → blue), stored linear.
      for (let i = 0; i < position.getCount(); i += 997) {
        const [x, , z] = position.getElement(i, [0, 0, 0]);
        const [r, , b] = color.getElement(i, [0, 0, 0, 0]);
        const expected = (value: number) =>
          ((Math.round(((value + 1) / 2) * 255) / 255 + 0.055) / 1.055) ** 2.4;
        assert.ok(Math.abs(r - expected(x)) < 0.01 && Math.abs(b - expected(z)) < 0.01, `point ${i}`);
      }
    }
    assert.equal(counts[0], 70_000);
    assert.ok(counts[1] > 70_000 * 0.4 && counts[1] <= 70_000 * 0.55, `LOD 1 has ${counts[1]} points`);
    assert.ok(counts[2] > 70_000 * 0.1 && counts[2] <= 70_000 * 0.17, `LOD 2 has ${counts[2]} points`);
    assert.ok(result.lods[1].error > 0 && result.lods[2].error >= result.lods[1].error);

    const thumbnail = await renderThumbnailDetailed(result.lods[0].glb, { width: 128, height: 128 });
    const covered = silhouette((await decodeRgba(thumbnail.png)).data).reduce(
      (sum, inside) => sum + inside,
      0,
    );
    assert.ok(covered > 128 * 128 * 0.2, `the thumbnail covers ${covered} pixels`);
  } finally {
    await remove();
  }
});
