// The resumable upload store on its own: the sweep of untouched uploads, and the copying hand-over used for
// stores that are not local files (run here over a local one). No database involved.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { FileStore } from '@tus/file-store';
import { Upload } from '@tus/server';
import { ApiError } from '../../src/http/api-error.ts';
import { takeByCopy, UPLOAD_NOT_FOUND } from '../../src/uploads/finished-uploads.ts';
import { sweepExpiredUploads } from '../../src/uploads/sweep-uploads.ts';

const HOUR_MS = 3_600_000;

void describe('resumable upload store', () => {
  let root: string;
  let store: FileStore;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-tus-'));
    store = new FileStore({ directory: path.join(root, 'uploads') });
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  /** An upload of `bytes` with `sent` of them written. */
  const upload = async (id: string, bytes: Uint8Array, sent = bytes.length) => {
    await store.create(
      new Upload({
        id,
        size: bytes.length,
        offset: 0,
        metadata: { filename: `${id}.stl` },
        creation_date: new Date().toISOString(),
      }),
    );
    if (sent > 0) await store.write(Readable.from([bytes.subarray(0, sent)]), id, 0);
  };
  const names = () => fs.readdirSync(store.directory).sort();

  void it('sweeps uploads untouched for longer than the expiry, whatever their state, and keeps the others', async () => {
    await upload('unfinished', new Uint8Array(100), 40);
    await upload('finished', new Uint8Array(100));
    fs.writeFileSync(path.join(store.directory, 'stray.taken'), 'held by a process that died');
    assert.deepEqual(await sweepExpiredUploads(store, 24 * HOUR_MS), []);
    assert.equal(names().length, 5);

    const removed = await sweepExpiredUploads(store, 24 * HOUR_MS, Date.now() + 25 * HOUR_MS);
    assert.deepEqual(removed.sort(), ['finished', 'stray', 'unfinished']);
    assert.deepEqual(names(), []);
  });

  void it('copies a finished upload out, removes it once consumed, and refuses unknown or unfinished ones', async () => {
    const bytes = Buffer.from('solid copied\nendsolid copied\n');
    await upload('copied', bytes);
    const tmpDir = path.join(root, 'tmp');
    const taken = await takeByCopy(store, 'copied', tmpDir);
    assert.equal(taken.file.filename, 'copied.stl');
    assert.equal(taken.file.size, bytes.length);
    assert.deepEqual(fs.readFileSync(taken.file.path), bytes);
    await taken.giveBack();
    assert.ok(names().includes('copied'), 'giving back leaves the upload in place');
    await taken.consume();
    assert.deepEqual(names(), []);

    await assert.rejects(takeByCopy(store, 'copied', tmpDir), new ApiError(404, UPLOAD_NOT_FOUND));
    await upload('partial', new Uint8Array(10), 4);
    await assert.rejects(
      takeByCopy(store, 'partial', tmpDir),
      new ApiError(409, 'Upload is not finished: 4 of 10 bytes received'),
    );
  });
});
