// A zip of 1 M entries was listed in full (~1 GB, 35–50 s) before the 10,000-entry limit applied. The limit is
// now checked against the count the central directory declares, before any entry is read, and while listing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { detectModelFormat } from '../../src/pipeline/detect-format.ts';
import { listArchive } from '../../src/pipeline/archive/read-archive.ts';
import { makeZip } from '../fixtures/make-zip.ts';

void describe('archive entry limits while listing', () => {
  let folder: string;
  let crowded: string;
  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-zip-'));
    crowded = path.join(folder, 'crowded.zip');
    const entries = Array.from({ length: 10_001 }, (_, index) => ({
      name: `f${index}.txt`,
      data: '',
      store: true,
    }));
    fs.writeFileSync(crowded, makeZip([{ name: 'model.obj', data: 'v 0 0 0\n' }, ...entries]));
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  void it('refuses an archive declaring more entries than the limit before reading one', async () => {
    await assert.rejects(listArchive(crowded), /Archive holds 10002 entries, more than the limit of 10000/);
    await assert.rejects(listArchive(crowded, 5), /more than the limit of 5/);
    assert.equal((await listArchive(crowded, 20_000)).length, 10_002);
  });

  void it('makes the upload check refuse the archive as unsupported instead of listing it', async () => {
    assert.equal(await detectModelFormat(crowded, 'crowded.zip'), undefined);
  });
});
