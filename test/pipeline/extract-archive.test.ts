import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { extractArchive } from '../../src/pipeline/archive/extract-archive.ts';
import { makeTraversalZip, makeZip, makeZipBomb } from '../fixtures/make-zip.ts';
import { tempDir } from './documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
let count = 0;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** Writes a zip to scratch and returns its path plus a fresh destination folder inside scratch. */
async function zipOnDisk(zip: Buffer): Promise<{ zipPath: string; dest: string }> {
  count++;
  const zipPath = path.join(scratch.dir, `upload-${count}.zip`);
  await writeFile(zipPath, zip);
  return { zipPath, dest: path.join(scratch.dir, `out-${count}`) };
}

void test('extracts files and folders, streaming each to disk', async () => {
  const big = Buffer.alloc(300_000, 'abc');
  const { zipPath, dest } = await zipOnDisk(
    makeZip([
      { name: 'model/', data: '' },
      { name: 'model/scene.gltf', data: '{"asset":{"version":"2.0"}}' },
      { name: 'model/textures/a.bin', data: big },
      { name: 'readme.txt', data: 'hi', store: true },
    ]),
  );
  const written = await extractArchive(zipPath, dest);
  assert.deepEqual(written.sort(), ['model/scene.gltf', 'model/textures/a.bin', 'readme.txt']);
  assert.deepEqual(await readFile(path.join(dest, 'model/textures/a.bin')), big);
  assert.equal(await readFile(path.join(dest, 'readme.txt'), 'utf8'), 'hi');
});

void test('refuses an entry that climbs out with ../ and writes nothing outside', async () => {
  const { zipPath, dest } = await zipOnDisk(makeTraversalZip());
  await assert.rejects(extractArchive(zipPath, dest), {
    name: 'ConversionError',
    message: 'Archive entry "../evil.txt" points outside the archive',
  });
  assert.equal(existsSync(path.join(scratch.dir, 'evil.txt')), false);
});

void test('refuses absolute paths, drive letters, backslash climbs and symbolic links', async () => {
  const cases: [string, Parameters<typeof makeZip>[0][number], RegExp][] = [
    ['absolute', { name: '/etc/evil', data: 'x' }, /"\/etc\/evil" points outside the archive/],
    ['drive', { name: 'C:/evil', data: 'x' }, /"C:\/evil" points outside the archive/],
    ['backslash', { name: 'a\\..\\..\\evil', data: 'x' }, /points outside the archive/],
    ['nested', { name: 'a/b/../../../evil', data: 'x' }, /points outside the archive/],
    ['symlink', { name: 'link', data: '/etc/passwd', mode: 0o120777 }, /"link" is a symbolic link/],
  ];
  for (const [label, entry, message] of cases) {
    const { zipPath, dest } = await zipOnDisk(makeZip([entry]));
    await assert.rejects(extractArchive(zipPath, dest), { name: 'ConversionError', message }, label);
  }
  assert.equal(existsSync(path.join(scratch.dir, 'evil')), false);
});

void test('refuses more than 10,000 entries', async () => {
  const entries = Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}.txt`, data: 'x', store: true }));
  const { zipPath, dest } = await zipOnDisk(makeZip(entries));
  await assert.rejects(extractArchive(zipPath, dest), {
    name: 'ConversionError',
    message: 'Archive holds 10001 entries, more than the limit of 10000',
  });
});

void test('stops a zip bomb by its compression ratio, keeping no partial file', async () => {
  const bomb = await makeZipBomb(256 * 1024 * 1024);
  assert.ok(bomb.length < 2 * 1024 * 1024, 'the bomb stays small');
  const { zipPath, dest } = await zipOnDisk(bomb);
  await assert.rejects(extractArchive(zipPath, dest), {
    name: 'ConversionError',
    message: /^Archive expands more than 200:1 .*zip bomb/,
  });
  assert.deepEqual(await readdir(dest), []);
});

void test('stops at the total size limit, counting inflated bytes', async () => {
  // Ten modest entries: each alone is fine, together they pass the limit.
  const entries = Array.from({ length: 10 }, (_, i) => ({
    name: `part${i}.bin`,
    data: Buffer.alloc(200_000, i),
  }));
  const { zipPath, dest } = await zipOnDisk(makeZip(entries));
  await assert.rejects(extractArchive(zipPath, dest, { maxBytes: 1_000_000, maxRatio: 1e9 }), {
    name: 'ConversionError',
    message: /^Archive expands beyond the .* limit$/,
  });
  await assert.doesNotReject(
    extractArchive(zipPath, `${dest}-roomy`, { maxBytes: 3_000_000, maxRatio: 1e9 }),
  );
});

void test('refuses a file that is not a zip', async () => {
  const { zipPath, dest } = await zipOnDisk(Buffer.from('PK\x03\x04 but then nothing of a zip'));
  await assert.rejects(extractArchive(zipPath, dest), {
    name: 'ConversionError',
    message: /^Invalid zip archive: /,
  });
});
