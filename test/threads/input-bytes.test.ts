import assert from 'node:assert/strict';
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { inputBytes } from '../../src/threads/input-bytes.ts';
import { tempDir } from '../pipeline/documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

const MIB = 1024 * 1024;

void it('counts the buffer files a .gltf names beside it, once each, and nothing else', async () => {
  // Sparse files: their size is what counts, and they cost no disk.
  await truncate(await touch('mesh data.bin'), 100 * MIB);
  await truncate(await touch('more.bin'), 3 * MIB);
  await truncate(await touch('texture.png'), 50 * MIB);
  const json = JSON.stringify({
    asset: { version: '2.0' },
    buffers: [
      { uri: 'mesh%20data.bin', byteLength: 100 * MIB },
      { uri: 'more.bin', byteLength: 3 * MIB },
      { uri: 'more.bin', byteLength: 3 * MIB },
      { uri: 'data:application/octet-stream;base64,AAAA', byteLength: 3 },
      { uri: 'missing.bin', byteLength: 10 },
      { byteLength: 4 },
    ],
    images: [{ uri: 'texture.png' }],
  });
  const file = path.join(scratch.dir, 'model.gltf');
  await writeFile(file, json);
  const bytes = await inputBytes({ file, dir: scratch.dir, format: 'gltf' });
  assert.equal(bytes, Buffer.byteLength(json) + 103 * MIB);
});

void it('counts a .gltf over 4 MiB by its own size, without parsing it on the event loop', async () => {
  await truncate(await touch('big.bin'), 100 * MIB);
  const json = JSON.stringify({
    asset: { version: '2.0' },
    buffers: [{ uri: 'big.bin', byteLength: 100 * MIB }],
  });
  const file = path.join(scratch.dir, 'large.gltf');
  await writeFile(file, json + ' '.repeat(5 * MIB));
  assert.equal(
    await inputBytes({ file, dir: scratch.dir, format: 'gltf' }),
    Buffer.byteLength(json) + 5 * MIB,
  );
});

void it('is the file size for other formats, for a .gltf that is not JSON, and 0 for a missing file', async () => {
  const stl = await touch('a.stl');
  await truncate(stl, 70 * MIB);
  assert.equal(await inputBytes({ file: stl, dir: scratch.dir, format: 'stl' }), 70 * MIB);
  const broken = path.join(scratch.dir, 'broken.gltf');
  await writeFile(broken, '{ not json');
  assert.equal(await inputBytes({ file: broken, dir: scratch.dir, format: 'gltf' }), 10);
  const missing = path.join(scratch.dir, 'none.glb');
  assert.equal(await inputBytes({ file: missing, dir: scratch.dir, format: 'glb' }), 0);
});

async function touch(name: string): Promise<string> {
  const file = path.join(scratch.dir, name);
  await writeFile(file, '');
  return file;
}
