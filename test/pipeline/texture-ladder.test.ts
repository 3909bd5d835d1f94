import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { applyTextureLadder } from '../../src/pipeline/lods/texture-ladder.ts';
import { emptyDocument, quietLogger, recordingContext } from './documents.ts';

/** A PNG of `width` × `height` with noise in colour and a left-to-right alpha ramp, so it has to be resized. */
async function rampPng(width: number, height: number): Promise<Uint8Array> {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 7 + y * 13) % 256;
      data[i + 1] = (x * 3) % 256;
      data[i + 2] = (y * 5) % 256;
      data[i + 3] = Math.round((x / (width - 1)) * 255);
    }
  }
  return new Uint8Array(
    await sharp(data, { raw: { width, height, channels: 4 } })
      .png()
      .toBuffer(),
  );
}

void test('a colour texture is resized within the size, keeps its aspect and alpha, and is restored', async () => {
  const document = emptyDocument();
  const png = await rampPng(1600, 400);
  const texture = document.createTexture('ramp').setImage(png).setMimeType('image/png').setURI('ramp.png');
  document.createMaterial('m').setBaseColorTexture(texture);

  const restore = await applyTextureLadder(document, { sharp, maxSize: 512 }, { logger: quietLogger });
  assert.equal(texture.getMimeType(), 'image/webp');
  assert.equal(texture.getURI(), 'ramp.webp');
  assert.ok(
    document
      .getRoot()
      .listExtensionsUsed()
      .some((extension) => extension.extensionName === 'EXT_texture_webp'),
  );
  const { data, info } = await sharp(texture.getImage()!).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([info.width, info.height, info.channels], [512, 128, 4], 'fits 512, keeps 4:1 and alpha');
  const alphaAt = (x: number) => data[(64 * info.width + x) * 4 + 3];
  assert.ok(alphaAt(2) < 10 && alphaAt(509) > 245, `alpha ramp kept: ${alphaAt(2)} … ${alphaAt(509)}`);

  restore();
  assert.equal(texture.getImage(), png, 'the source image is back');
  assert.equal(texture.getMimeType(), 'image/png');
  assert.equal(texture.getURI(), 'ramp.png');
  assert.deepEqual(document.getRoot().listExtensionsUsed(), [], 'the WebP extension is gone again');
});

void test('an image that cannot be read is kept with a warning; a WebP within the size is kept as it came', async () => {
  const document = emptyDocument();
  const broken = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
  const bad = document.createTexture('bad').setImage(broken).setMimeType('image/png');
  const tiny = new Uint8Array(
    await sharp({ create: { width: 2, height: 2, channels: 3, background: '#808080' } })
      .webp()
      .toBuffer(),
  );
  const small = document.createTexture('small').setImage(tiny).setMimeType('image/webp');
  document.createMaterial('m').setBaseColorTexture(bad).setEmissiveTexture(small);
  const context = recordingContext();
  await applyTextureLadder(document, { sharp, maxSize: 512 }, context);
  assert.equal(bad.getImage(), broken);
  assert.equal(bad.getMimeType(), 'image/png');
  assert.match(context.warnings.join('\n'), /texture "bad" kept as it is/);
  assert.equal(small.getImage(), tiny, 'not encoded a second time');
});
