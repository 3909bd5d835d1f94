// One suite, every store: what the catalog and the worker rely on must hold for local files and for S3 alike.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { BlobStore } from '../../src/storage/blob-store.ts';
import { createFileStore } from '../../src/storage/file-store.ts';
import { createS3Client, createS3Store } from '../../src/storage/s3-store.ts';
import { parseStorageSettings, type S3StorageSettings } from '../../src/storage/storage-settings.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../helpers/s3-server.ts';

/** A store under test, with a way to list every key it holds (what an operator would see). */
interface StoreUnderTest {
  store: BlobStore;
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

const MIB = 1024 * 1024;

async function openFileStore(): Promise<StoreUnderTest> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-files-'));
  return {
    store: createFileStore(root),
    keys: async () =>
      (await fsp.readdir(root, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) =>
          path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
        ),
    close: async () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

async function openS3Store(): Promise<StoreUnderTest> {
  const server: TestS3Server = await startS3Server();
  const problems: string[] = [];
  const settings = parseStorageSettings(
    `s3://${server.bucket}/contract`,
    server.env('contract'),
    problems,
  ) as S3StorageSettings;
  assert.deepEqual(problems, []);
  const client = createS3Client(settings);
  // The credentials come from the SDK's default chain, as in production.
  Object.assign(process.env, S3RVER_CREDENTIALS);
  return {
    store: createS3Store(settings, client),
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: server.bucket, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    async close() {
      client.destroy();
      await server.close();
    },
  };
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** Writes `size` random bytes to a new file in chunks, never holding them all. */
async function generateFile(file: string, size: number): Promise<void> {
  const out = fs.createWriteStream(file);
  for (let written = 0; written < size; written += MIB) {
    if (!out.write(randomBytes(Math.min(MIB, size - written)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Runs `work` while sampling RSS; resolves with the highest growth over the RSS at the start. */
async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage().rss) - start;
}

for (const [name, open] of [
  ['file', openFileStore],
  ['s3', openS3Store],
] as const) {
  void describe(`BlobStore contract (${name})`, () => {
    let under: StoreUnderTest;
    let scratch: string;
    before(async () => {
      under = await open();
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-blob-scratch-'));
    });
    after(async () => {
      await under.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    void it('stores bytes that read, head and download back the same', async () => {
      const bytes = randomBytes(10_000);
      assert.deepEqual(await under.store.putBytes('models/m1/lod0-abc.glb', bytes), { size: 10_000 });
      assert.deepEqual(await buffer(await under.store.read('models/m1/lod0-abc.glb')), bytes);
      assert.deepEqual(await under.store.head('models/m1/lod0-abc.glb'), { size: 10_000 });
      const local = path.join(scratch, 'downloaded.glb');
      await under.store.download('models/m1/lod0-abc.glb', local);
      assert.deepEqual(await fsp.readFile(local), bytes);
    });

    void it('stores a local file under its key', async () => {
      const local = path.join(scratch, 'upload.obj');
      await fsp.writeFile(local, 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
      assert.deepEqual(await under.store.putFile('models/m2/source/tri.obj', local), { size: 32 });
      const back = path.join(scratch, 'back.obj');
      await under.store.download('models/m2/source/tri.obj', back);
      assert.equal(await fsp.readFile(back, 'utf8'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
    });

    void it('says when an object does not exist', async () => {
      assert.equal(await under.store.head('models/none/lod0.glb'), undefined);
      await assert.rejects(under.store.read('models/none/lod0.glb'));
      await assert.rejects(under.store.download('models/none/lod0.glb', path.join(scratch, 'none.glb')));
      assert.equal(fs.existsSync(path.join(scratch, 'none.glb')), false, 'no empty file is left behind');
    });

    void it('deletes one object, and a missing one without complaint', async () => {
      await under.store.putBytes('models/m3/thumbnail-1.png', new Uint8Array([1, 2, 3]));
      await under.store.delete('models/m3/thumbnail-1.png');
      assert.equal(await under.store.head('models/m3/thumbnail-1.png'), undefined);
      await under.store.delete('models/m3/thumbnail-1.png');
    });

    void it('deletes everything under a prefix, page after page, and nothing beside it', async () => {
      const keys = Array.from({ length: 1005 }, (_, index) => `models/m4/parts/p${index}.bin`);
      keys.push('models/m4/source/big.stl', 'models/m4/lod0-x.glb');
      for (let start = 0; start < keys.length; start += 25) {
        await Promise.all(
          keys.slice(start, start + 25).map((key) => under.store.putBytes(key, new Uint8Array(1))),
        );
      }
      await under.store.putBytes('models/m40/lod0-y.glb', new Uint8Array(2));
      await under.store.deletePrefix('models/m4/');
      const left = await under.keys();
      assert.deepEqual(
        left.filter((key) => key.includes('models/m4/')),
        [],
        'no object of the prefix is left, beyond the first listing page',
      );
      assert.ok(
        left.some((key) => key.endsWith('models/m40/lod0-y.glb')),
        'a key that merely starts alike stays',
      );
      await under.store.deletePrefix('models/never-stored/');
    });

    void it('streams a 96 MiB file in and out without holding it in memory', async () => {
      const size = 96 * MIB;
      const local = path.join(scratch, 'large.stl');
      await generateFile(local, size);
      const digest = await sha256(local);
      const back = path.join(scratch, 'large-back.stl');
      const growth = await peakRssGrowth(async () => {
        await under.store.putFile('models/m5/source/large.stl', local);
        await under.store.download('models/m5/source/large.stl', back);
      });
      assert.deepEqual(await under.store.head('models/m5/source/large.stl'), { size });
      assert.equal(await sha256(back), digest);
      assert.ok(growth < size, `memory grew by ${Math.round(growth / MIB)} MiB for a ${size / MIB} MiB file`);
    });

    void it('hands out the stable /files/ address', () => {
      assert.equal(
        under.store.publicUrl('models/m6/source/a b.glb', 'https://v.example'),
        'https://v.example/files/models/m6/source/a%20b.glb',
      );
    });

    if (name === 's3') {
      void it('signs GETs a plain fetch can follow, answered with the requested safe headers', async () => {
        const bytes = randomBytes(2048);
        await under.store.putBytes('models/m7/source/evil.html', bytes);
        const url = await under.store.signedUrl!('models/m7/source/evil.html', {
          contentType: 'application/octet-stream',
          contentDisposition: 'attachment; filename="evil.html"',
          cacheControl: 'private, max-age=60',
        });
        const response = await fetch(url);
        assert.equal(response.status, 200);
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
        assert.equal(response.headers.get('content-type'), 'application/octet-stream');
        assert.equal(response.headers.get('content-disposition'), 'attachment; filename="evil.html"');
        assert.equal(response.headers.get('cache-control'), 'private, max-age=60');
        assert.equal(new URL(url).origin, await under.store.signedUrlOrigin!());
        assert.match(url, /X-Amz-Expires=3600&/, 'the default life is an hour');
        const query = new URL(url).searchParams.get('X-Amz-SignedHeaders');
        assert.ok(query, 'the URL is a SigV4 presigned one');
      });

      void it('keeps its objects under the STORAGE_URL prefix', async () => {
        const keys = await under.keys();
        assert.ok(keys.length > 0);
        for (const key of keys) assert.ok(key.startsWith('contract/'), key);
      });
    } else {
      void it('has no signed URLs: the app serves local files itself', () => {
        assert.equal(under.store.signedUrl, undefined);
        assert.ok(under.store.localRoot);
      });
    }
  });
}
