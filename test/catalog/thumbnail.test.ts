import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { MAX_THUMBNAIL_BYTES } from '../../src/catalog/thumbnails/thumbnail-routes.ts';
import { catalogApi, catalogError, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG whose header declares the given size (its CRC right), with no pixel data behind it. */
function pngDeclaring(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter, not interlaced
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IEND', Buffer.alloc(0))]);
}

/** A small solid image of one colour in the given format. */
function image(format: 'png' | 'jpeg' | 'gif', r: number, g = 0, b = 0): Promise<Buffer> {
  return sharp({ create: { width: 16, height: 16, channels: 3, background: { r, g, b } } })
    .toFormat(format)
    .toBuffer();
}

for (const dialect of testDialects()) {
  void describe(`thumbnail upload (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let modelId: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      modelId = (await api.create('triangle.obj', OBJ)).id;
    });
    after(() => testApp.close());

    /** Where the file store keeps the object a handed-out URL points at. */
    const fileOf = (url: string) =>
      path.join(
        testApp.config.dataDir,
        'files',
        decodeURIComponent(new URL(url).pathname.replace(/^\/files\//, '')),
      );
    const thumbnailUrl = async () =>
      (await api.call('GET', `/${modelId}`)).json.data.thumbnail_url as string | null;
    const tmpUploads = () => {
      const folder = path.join(testApp.config.dataDir, 'tmp', 'uploads');
      // Files only: each process keeps its uploads in its own scratch folder under this one.
      if (!fs.existsSync(folder)) return [];
      return fs
        .readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    };

    void it('stores a PNG, then a JPEG, each under a new URL, removing the one before', async () => {
      const png = await image('png', 255);
      const first = await api.thumbnail(modelId, 'thumb.png', png);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.success, true);
      assert.equal(first.json.data.id, modelId);
      assert.equal(first.json.thumbnail_url, first.json.data.thumbnail_url);
      assert.match(new URL(first.json.thumbnail_url).pathname, /\.png$/);
      assert.deepEqual(fs.readFileSync(fileOf(first.json.thumbnail_url)), png);
      assert.equal(await thumbnailUrl(), first.json.thumbnail_url);

      const jpeg = await image('jpeg', 0, 0, 255);
      const second = await api.thumbnail(modelId, 'thumb.jpg', jpeg, 'image/jpeg');
      assert.equal(second.status, 200, second.text);
      assert.match(new URL(second.json.thumbnail_url).pathname, /\.jpg$/);
      assert.notEqual(second.json.thumbnail_url, first.json.thumbnail_url);
      assert.equal(fs.existsSync(fileOf(first.json.thumbnail_url)), false, 'the old file is removed');
      const served = await testApp.app.inject({ method: 'GET', url: pathOf(second.json.thumbnail_url) });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/jpeg');
      assert.deepEqual(served.rawPayload, jpeg);
      const gone = await testApp.app.inject({ method: 'GET', url: pathOf(first.json.thumbnail_url) });
      assert.equal(gone.statusCode, 404);

      const third = await api.thumbnail(modelId, 'again.png', await image('png', 0, 255));
      assert.equal(third.status, 200);
      assert.notEqual(third.json.thumbnail_url, second.json.thumbnail_url);
      assert.equal(fs.existsSync(fileOf(second.json.thumbnail_url)), false);
      assert.deepEqual(tmpUploads(), []);
    });

    void it('judges the type by the bytes, not the name or declared type', async () => {
      const png = await image('png', 10, 200, 10);
      const disguised = await api.thumbnail(modelId, 'photo.jpg', png, 'image/jpeg');
      assert.equal(disguised.status, 200, disguised.text);
      assert.match(new URL(disguised.json.thumbnail_url).pathname, /\.png$/, 'stored as what it is');
      const served = await testApp.app.inject({ method: 'GET', url: pathOf(disguised.json.thumbnail_url) });
      assert.equal(served.headers['content-type'], 'image/png');
    });

    void it('refuses anything but PNG and JPEG with 400, keeping the current thumbnail', async () => {
      const before = await thumbnailUrl();
      const refused: [filename: string, data: Buffer, type: string][] = [
        ['thumb.gif', await image('gif', 255), 'image/gif'],
        ['thumb.png', await image('gif', 255), 'image/png'],
        ['thumb.jpg', Buffer.from('not an image at all'), 'image/jpeg'],
        ['thumb.png', PNG_SIGNATURE.subarray(0, 7), 'image/png'],
        ['thumb.png', Buffer.alloc(0), 'image/png'],
      ];
      for (const [filename, data, type] of refused) {
        const response = await api.thumbnail(modelId, filename, data, type);
        assert.equal(response.status, 400, `${filename} (${data.length} bytes)`);
        assert.equal(response.text, catalogError('Only PNG and JPEG images are allowed'));
      }
      assert.equal(await thumbnailUrl(), before);
      assert.ok(before && fs.existsSync(fileOf(before)));
      assert.deepEqual(tmpUploads(), []);
    });

    void it('decodes before storing: a corrupt image or one over 4096 pixels a side is refused with 400', async () => {
      const before = await thumbnailUrl();
      const png = await image('png', 90);
      const jpeg = await image('jpeg', 90);
      const refused: [label: string, data: Buffer, error: string][] = [
        ['PNG signature then garbage', Buffer.concat([PNG_SIGNATURE, Buffer.alloc(4000, 7)]), 'corrupt'],
        ['PNG cut before its image data', png.subarray(0, 40), 'corrupt'],
        ['JPEG cut in half', jpeg.subarray(0, jpeg.length >> 1), 'corrupt'],
        ['60000 × 60000 declared', pngDeclaring(60_000, 60_000), '60000 × 60000'],
        ['4097 × 16 declared', pngDeclaring(4097, 16), '4097 × 16'],
      ];
      for (const [label, data, error] of refused) {
        const response = await api.thumbnail(modelId, 'thumb.png', data);
        assert.equal(response.status, 400, label);
        assert.equal(response.json.success, false, label);
        assert.match(response.json.error, new RegExp(error), label);
      }
      assert.equal(
        (await api.thumbnail(modelId, 'thumb.png', pngDeclaring(60_000, 60_000))).text,
        catalogError('The thumbnail is 60000 × 60000 pixels; at most 4096 × 4096 are allowed'),
      );
      assert.equal(await thumbnailUrl(), before);
      assert.deepEqual(tmpUploads(), []);
      const edge = await sharp({
        create: { width: 4096, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } },
      })
        .png()
        .toBuffer();
      const accepted = await api.thumbnail(modelId, 'wide.png', edge);
      assert.equal(accepted.status, 200, accepted.text);
    });

    void it('refuses a request without the thumbnail file with 400', async () => {
      const png = await image('png', 1);
      for (const response of [
        await api.postForm(`/${modelId}/thumbnail`, { note: 'no file' }),
        await api.postForm(`/${modelId}/thumbnail`, {}, { field: 'file', filename: 'a.png', data: png }),
        await api.call('POST', `/${modelId}/thumbnail`, { thumbnail: 'a.png' }),
        await api.call('POST', `/${modelId}/thumbnail`),
      ]) {
        assert.equal(response.status, 400, response.text);
        assert.equal(response.text, catalogError('No thumbnail file provided'));
      }
    });

    void it('answers 400 to a thumbnail body cut off inside the image', { timeout: 20_000 }, async () => {
      const before = await thumbnailUrl();
      const form = multipartForm({}, { field: 'thumbnail', filename: 't.png', data: await image('png', 9) });
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${modelId}/thumbnail`,
        headers: { ...testApp.auth, 'content-type': form.headers['content-type']! },
        payload: form.payload.subarray(0, form.payload.length - 30),
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.body, catalogError('Malformed multipart body'));
      assert.equal(await thumbnailUrl(), before);
      assert.deepEqual(tmpUploads(), []);
    });

    void it('answers 413 `File too large` one byte over 2 MB and accepts 2 MB itself', async () => {
      const before = await thumbnailUrl();
      const png = await image('png', 40);
      // A real image followed by bytes after its end marker, which decoders ignore.
      const padded = (size: number) => Buffer.concat([png, Buffer.alloc(size - png.length)]);
      assert.equal(MAX_THUMBNAIL_BYTES, 2 * 1024 * 1024);
      const over = await api.thumbnail(modelId, 'big.png', padded(2 * 1024 * 1024 + 1));
      assert.equal(over.status, 413);
      assert.equal(over.text, catalogError('File too large'));
      assert.equal(await thumbnailUrl(), before);
      assert.deepEqual(tmpUploads(), []);
      const limit = await api.thumbnail(modelId, 'big.png', padded(2 * 1024 * 1024));
      assert.equal(limit.status, 200, limit.text);
      assert.equal(fs.statSync(fileOf(limit.json.thumbnail_url)).size, 2 * 1024 * 1024);
    });

    void it('answers 404 `Model not found` for an unknown model and stores nothing', async () => {
      const response = await api.thumbnail(UNKNOWN_ID, 'thumb.png', await image('png', 3));
      assert.equal(response.status, 404);
      assert.equal(response.text, catalogError('Model not found'));
      assert.equal(fs.existsSync(path.join(testApp.config.dataDir, 'files', 'models', UNKNOWN_ID)), false);
    });
  });
}
