import assert from 'node:assert/strict';
import { test } from 'node:test';
import validator from 'gltf-validator';
import { convertedSample } from '../helpers/converted-samples.ts';
import { SAMPLES, formatOf, readSample } from './support.ts';
import type { Sample } from './support.ts';

const ALL: Sample[] = [...SAMPLES.assimp, ...SAMPLES.occt, ...SAMPLES.ifc];

for (const sample of ALL) {
  void test(`${sample.file} converts end to end: valid LODs, every source triangle in LOD 0, parts`, async () => {
    const result = await convertedSample(sample.file);
    const source = sample.triangles ?? (await readSample(sample.file)).sourceTriangleCount!;
    assert.ok(source > 0);

    assert.deepEqual(
      result.lods.map((lod) => lod.level),
      [0, 1, 2],
    );
    const lod0 = result.lods[0].triangle_count;
    assert.ok(Math.abs(lod0 - source) <= source * 0.01, `LOD 0 has ${lod0} triangles, the source ${source}`);
    assert.equal(result.triangle_count, lod0);
    assert.ok(result.parts.length > 0);
    for (const lod of result.lods) {
      const report = await validator.validateBytes(lod.glb, { maxIssues: 20 });
      const errors = report.issues.messages.filter((message) => message.severity === 0);
      assert.deepEqual(
        errors.map((error) => `${error.code} ${error.message}`),
        [],
        `LOD ${lod.level}`,
      );
    }
    if (formatOf(sample.file) === 'ifc') {
      // IFC parts keep their GlobalIds through clean-up and part extraction.
      assert.ok(result.parts.every((part) => /^[0-9A-Za-z_$]{22}$/.test(part.group_id)));
    }
  });
}
