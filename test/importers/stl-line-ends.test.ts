import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { boxStl } from '../fixtures/box-stl.ts';
import { recordingContext } from './support.ts';

let scratch: string;
before(async () => void (scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-stl-'))));
after(() => rm(scratch, { recursive: true, force: true }));

/** The positions and indices an ASCII STL text imports as. */
async function geometryOf(name: string, text: string) {
  const file = path.join(scratch, name);
  await writeFile(file, text);
  const { document } = await importerFor('stl')!.read(
    { file, dir: scratch, format: 'stl' },
    recordingContext(),
  );
  const primitive = document.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
  return {
    positions: [...primitive.getAttribute('POSITION')!.getArray()!],
    indices: [...primitive.getIndices()!.getArray()!],
  };
}

void test('an ASCII STL reads the same with LF, CRLF and lone CR line ends, and after a byte-order mark', async () => {
  const text = boxStl(1, 2, 3);
  const unix = await geometryOf('lf.stl', text);
  assert.equal(unix.indices.length, 36);
  assert.deepEqual(await geometryOf('crlf.stl', text.replace(/\n/g, '\r\n')), unix);
  assert.deepEqual(await geometryOf('cr.stl', text.replace(/\n/g, '\r')), unix);
  assert.deepEqual(await geometryOf('bom.stl', `\uFEFF${text}`), unix);
  assert.deepEqual(await geometryOf('bom-cr.stl', `\uFEFF${text.replace(/\n/g, '\r')}`), unix);
});
