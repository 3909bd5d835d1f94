import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { missingResources } from '../../src/catalog/intake/missing-resources.ts';

void test('an .obj upload lacks the roughness and metalness maps its library names, as the importer reads them', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-missing-'));
  try {
    const files = {
      'a.obj': 'mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n',
      'a.mtl': 'newmtl m\nmap_Kd colour.png\nmap_Pr rough.png\nmap_Pm -clamp on metal.png\n',
      'colour.png': 'x',
    };
    const uploaded = await Promise.all(
      Object.entries(files).map(async ([relativeName, text]) => {
        await writeFile(path.join(dir, relativeName), text);
        return { path: path.join(dir, relativeName), relativeName };
      }),
    );
    assert.deepEqual(await missingResources(uploaded[0], 'obj', uploaded), ['rough.png', 'metal.png']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
