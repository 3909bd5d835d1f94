import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Document, TextureInfo } from '@gltf-transform/core';
import { EXTMeshGPUInstancing, KHRTextureTransform } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { renderThumbnail, renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import type { RenderOptions } from '../../src/render/render-thumbnail.ts';
import { addQuad, sceneOf, toGlb, unlitMaterial } from './fixtures.ts';
import { decodeRgba } from './silhouette.ts';

/** Looking straight at the xy plane from +z, so quads face the camera. */
const FRONT = { view: { azimuth: 0, elevation: 0 } } satisfies Partial<RenderOptions>;

async function render(document: Document, options: Partial<RenderOptions> = {}) {
  const png = await renderThumbnail(await toGlb(document), { width: 128, height: 128, ...FRONT, ...options });
  return decodeRgba(png);
}

type Image = Awaited<ReturnType<typeof render>>;

function pixel(image: Image, x: number, y: number): number[] {
  const o = (y * image.width + x) * 4;
  return Array.from(image.data.subarray(o, o + 4));
}

function coverage(image: Image): number {
  let n = 0;
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i] > 0) n++;
  return n / (image.width * image.height);
}

/** Horizontal extent of the drawn pixels on the middle row. */
function middleRow(image: Image): { left: number; right: number; y: number } {
  const y = image.height >> 1;
  let left = -1;
  let right = -1;
  for (let x = 0; x < image.width; x++) {
    if (pixel(image, x, y)[3] > 0) {
      if (left < 0) left = x;
      right = x;
    }
  }
  return { left, right, y };
}

async function stripeTexture(document: Document): Promise<ReturnType<Document['createTexture']>> {
  // 8×1: four red texels, then four blue.
  const raw = Buffer.alloc(8 * 4);
  for (let x = 0; x < 8; x++) raw.set(x < 4 ? [255, 0, 0, 255] : [0, 0, 255, 255], x * 4);
  const png = await sharp(raw, { raw: { width: 8, height: 1, channels: 4 } })
    .png()
    .toBuffer();
  return document.createTexture().setImage(new Uint8Array(png)).setMimeType('image/png');
}

void describe('renderThumbnail on documents built in code', () => {
  void it('returns a PNG of the requested size, with the default 512×512', async () => {
    const document = new Document();
    addQuad(document);
    const glb = await toGlb(document);
    const png = await renderThumbnail(glb);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const meta = await sharp(png).metadata();
    assert.equal(meta.width, 512);
    assert.equal(meta.height, 512);
    assert.equal(meta.channels, 4);
    const wide = await sharp(await renderThumbnail(glb, { width: 200, height: 100 })).metadata();
    assert.deepEqual([wide.width, wide.height], [200, 100]);
  });

  void it('draws an unlit base colour exactly, centred, on a transparent background', async () => {
    const document = new Document();
    addQuad(document, { material: unlitMaterial(document, [1, 0, 0, 1]) });
    const image = await render(document);
    assert.deepEqual(pixel(image, 64, 64), [255, 0, 0, 255]);
    assert.deepEqual(pixel(image, 0, 0), [0, 0, 0, 0]);
    const { left, right } = middleRow(image);
    // Seen square on, the quad fills the image but for the frame's head-room (64 / 1.04 pixels from the centre).
    assert.ok(Math.abs(left + right - 127) <= 1, `quad spans ${left}..${right}`);
    assert.ok(left >= 2 && left <= 3, `quad spans ${left}..${right}`);
  });

  void it('paints the background it is given', async () => {
    const document = new Document();
    addQuad(document, { material: unlitMaterial(document, [1, 0, 0, 1]) });
    const image = await render(document, { background: [0, 1, 0, 1] });
    assert.deepEqual(pixel(image, 0, 0), [0, 255, 0, 255]);
    assert.deepEqual(pixel(image, 64, 64), [255, 0, 0, 255]);
  });

  void it('multiplies the base colour by COLOR_0', async () => {
    const document = new Document();
    addQuad(document, { material: unlitMaterial(document, [1, 1, 1, 1]), vertexColor: [0, 1, 0, 1] });
    assert.deepEqual(pixel(await render(document), 64, 64), [0, 255, 0, 255]);

    // Normalized 16-bit RGB colours, as quantized files store them.
    const quantized = new Document();
    const node = addQuad(quantized, { material: unlitMaterial(quantized, [1, 1, 1, 1]) });
    const colors = new Uint16Array([0, 0, 65535, 0, 0, 65535, 0, 0, 65535, 0, 0, 65535]);
    const accessor = quantized.createAccessor().setType('VEC3').setArray(colors).setNormalized(true);
    node
      .getMesh()!
      .listPrimitives()[0]
      .setAttribute('COLOR_0', accessor.setBuffer(quantized.getRoot().listBuffers()[0]));
    assert.deepEqual(pixel(await render(quantized), 64, 64), [0, 0, 255, 255]);
  });

  void it('samples the base-colour texture with its uvs and KHR_texture_transform', async () => {
    const document = new Document();
    const material = unlitMaterial(document, [1, 1, 1, 1]).setBaseColorTexture(await stripeTexture(document));
    addQuad(document, { material });
    const plain = await render(document);
    const { left, right, y } = middleRow(plain);
    const at = (image: Image, f: number) => pixel(image, Math.round(left + (right - left) * f), y);
    assert.deepEqual(at(plain, 0.2), [255, 0, 0, 255]);
    assert.deepEqual(at(plain, 0.8), [0, 0, 255, 255]);

    // Offsetting u by half a repeat swaps the stripes.
    const transform = document.createExtension(KHRTextureTransform).createTransform().setOffset([0.5, 0]);
    material.getBaseColorTextureInfo()!.setExtension('KHR_texture_transform', transform);
    const shifted = await render(document);
    assert.deepEqual(at(shifted, 0.2), [0, 0, 255, 255]);
    assert.deepEqual(at(shifted, 0.8), [255, 0, 0, 255]);

    // Twice the repeat: u 0.8 → 1.6 is blue when repeating, red when mirrored, blue when clamped.
    transform.setOffset([0, 0]).setScale([2, 1]);
    const info = material.getBaseColorTextureInfo()!;
    const expected = [
      [TextureInfo.WrapMode.REPEAT, [0, 0, 255, 255]],
      [TextureInfo.WrapMode.MIRRORED_REPEAT, [255, 0, 0, 255]],
      [TextureInfo.WrapMode.CLAMP_TO_EDGE, [0, 0, 255, 255]],
    ] as const;
    for (const [mode, colour] of expected) {
      info.setWrapS(mode);
      const image = await render(document);
      assert.deepEqual(at(image, 0.2), [255, 0, 0, 255]);
      assert.deepEqual(at(image, 0.8), [...colour], `wrap mode ${mode}`);
    }
    // Clamped, everything past u = 1 stays blue: the right half entirely.
    assert.deepEqual(at(await render(document), 0.6), [0, 0, 255, 255]);
  });

  void it('keeps the nearer surface whatever the drawing order', async () => {
    for (const nearFirst of [true, false]) {
      const document = new Document();
      const near = () =>
        addQuad(document, {
          center: [0, 0, 0.5],
          size: 0.5,
          material: unlitMaterial(document, [1, 0, 0, 1]),
        });
      const far = () =>
        addQuad(document, { center: [0, 0, -0.5], material: unlitMaterial(document, [0, 0, 1, 1]) });
      if (nearFirst) {
        near();
        far();
      } else {
        far();
        near();
      }
      const image = await render(document);
      assert.deepEqual(pixel(image, 64, 64), [255, 0, 0, 255], `near drawn ${nearFirst ? 'first' : 'last'}`);
      assert.deepEqual(pixel(image, middleRow(image).left + 2, 64), [0, 0, 255, 255]);
    }
  });

  void it('discards MASK fragments below the cutoff and draws the rest opaque', async () => {
    for (const [alpha, expected] of [
      [0.3, 0],
      [0.6, 255],
    ] as const) {
      const document = new Document();
      const material = unlitMaterial(document, [1, 0, 0, alpha]).setAlphaMode('MASK').setAlphaCutoff(0.5);
      addQuad(document, { material });
      assert.equal(pixel(await render(document), 64, 64)[3], expected, `alpha ${alpha}`);
    }
  });

  void it('renders one after another or side by side leave nothing of each other behind', async () => {
    const opaque = new Document();
    addQuad(opaque, { size: 0.6, material: unlitMaterial(opaque, [0, 0, 1, 1]) });
    const blended = new Document();
    addQuad(blended, { material: unlitMaterial(blended, [1, 0, 0, 0.5]).setAlphaMode('BLEND') });
    addQuad(blended, { center: [0.3, 0.3, -0.5], size: 0.4, material: unlitMaterial(blended, [0, 1, 0, 1]) });
    const [opaqueGlb, blendedGlb] = await Promise.all([toGlb(opaque), toGlb(blended)]);
    const options = { width: 96, height: 96, ...FRONT };
    const onBackground = { ...options, background: [0.2, 0.4, 0.6, 1] as [number, number, number, number] };
    const first = await renderThumbnail(opaqueGlb, options);
    const clearBlended = await renderThumbnail(blendedGlb, options);
    const firstBlended = await renderThumbnail(blendedGlb, onBackground);
    await renderThumbnail(opaqueGlb, { ...options, width: 40, height: 50, supersample: 3 });
    assert.ok(
      (await renderThumbnail(opaqueGlb, options)).equals(first),
      'the same picture after other renders',
    );
    assert.ok((await renderThumbnail(blendedGlb, onBackground)).equals(firstBlended));
    const together = await Promise.all([
      renderThumbnail(blendedGlb, onBackground),
      renderThumbnail(opaqueGlb, options),
      renderThumbnail(blendedGlb, onBackground),
    ]);
    assert.ok(together[0].equals(firstBlended) && together[2].equals(firstBlended), 'side by side');
    assert.ok(together[1].equals(first));
    assert.ok((await renderThumbnail(blendedGlb, options)).equals(clearBlended), 'no background left behind');
  });

  void it('blends BLEND primitives over the opaque ones even when they come first', async () => {
    const document = new Document();
    addQuad(document, {
      center: [0, 0, 0.5],
      size: 0.5,
      material: unlitMaterial(document, [1, 0, 0, 0.5]).setAlphaMode('BLEND'),
    });
    addQuad(document, { center: [0, 0, -0.5], material: unlitMaterial(document, [0, 0, 1, 1]) });
    const [r, g, b, a] = pixel(await render(document), 64, 64);
    assert.equal(a, 255);
    assert.equal(g, 0);
    // Half red over blue, mixed in linear light: both channels at about sRGB(0.5) ≈ 188.
    assert.ok(Math.abs(r - 188) <= 2 && Math.abs(b - 188) <= 2, `got ${r},${g},${b}`);

    const alone = new Document();
    addQuad(alone, { material: unlitMaterial(alone, [1, 0, 0, 0.5]).setAlphaMode('BLEND') });
    const [, , , alphaAlone] = pixel(await render(alone), 64, 64);
    assert.ok(Math.abs(alphaAlone - 128) <= 1, `alpha ${alphaAlone}`);
  });

  void it('covers every sample of a finely split surface exactly once (no cracks, no double blending)', async () => {
    // A 24×24 grid of jittered triangles, half transparent: a gap or an overlap at any shared
    // edge would show as a pixel whose alpha is not exactly one half.
    const n = 24;
    const document = new Document();
    const buffer = document.createBuffer();
    const positions = new Float32Array((n + 1) * (n + 1) * 3);
    for (let y = 0; y <= n; y++) {
      for (let x = 0; x <= n; x++) {
        const inner = x > 0 && x < n && y > 0 && y < n;
        const jx = inner ? Math.sin(x * 12.9898 + y * 78.233) * 0.3 : 0;
        const jy = inner ? Math.cos(x * 39.346 + y * 11.135) * 0.3 : 0;
        positions.set([((x + jx) / n) * 2 - 1, ((y + jy) / n) * 2 - 1, 0], (y * (n + 1) + x) * 3);
      }
    }
    const indices: number[] = [];
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const a = y * (n + 1) + x;
        indices.push(a, a + 1, a + n + 2, a, a + n + 2, a + n + 1);
      }
    }
    const primitive = document
      .createPrimitive()
      .setAttribute(
        'POSITION',
        document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer),
      )
      .setIndices(
        document.createAccessor().setType('SCALAR').setArray(new Uint32Array(indices)).setBuffer(buffer),
      )
      .setMaterial(unlitMaterial(document, [1, 1, 1, 0.5]).setAlphaMode('BLEND'));
    sceneOf(document).addChild(document.createNode().setMesh(document.createMesh().addPrimitive(primitive)));
    for (const supersample of [1, 2, 3]) {
      const image = await render(document, { supersample });
      const { left, right } = middleRow(image);
      let checked = 0;
      for (let y = left + 2; y <= right - 2; y++) {
        for (let x = left + 2; x <= right - 2; x++, checked++) {
          const alpha = pixel(image, x, y)[3];
          if (alpha !== 128) assert.fail(`supersample ${supersample}: alpha ${alpha} at ${x},${y}`);
        }
      }
      assert.ok(checked > 2000);
    }
  });

  void it('draws back faces unless asked to cull them, and always for double-sided materials', async () => {
    const document = new Document();
    const material = unlitMaterial(document, [1, 0, 0, 1]);
    addQuad(document, { facing: -1, material });
    assert.equal(pixel(await render(document), 64, 64)[3], 255);
    assert.equal(pixel(await render(document, { cullBackFaces: true }), 64, 64)[3], 0);
    material.setDoubleSided(true);
    assert.equal(pixel(await render(document, { cullBackFaces: true }), 64, 64)[3], 255);
  });

  void it('depth-sorts back faces against front faces either way round', async () => {
    for (const backInFront of [true, false]) {
      const document = new Document();
      const red = unlitMaterial(document, [1, 0, 0, 1]);
      const blue = unlitMaterial(document, [0, 0, 1, 1]);
      // The small quad is nearer; the one facing away is blue.
      addQuad(document, {
        center: [0, 0, 0.5],
        size: 0.5,
        facing: backInFront ? -1 : 1,
        material: backInFront ? blue : red,
      });
      addQuad(document, {
        center: [0, 0, -0.5],
        facing: backInFront ? 1 : -1,
        material: backInFront ? red : blue,
      });
      const image = await render(document);
      const near = backInFront ? [0, 0, 255, 255] : [255, 0, 0, 255];
      const far = backInFront ? [255, 0, 0, 255] : [0, 0, 255, 255];
      assert.deepEqual(pixel(image, 64, 64), near, `back face ${backInFront ? 'in front' : 'behind'}`);
      assert.deepEqual(pixel(image, middleRow(image).left + 2, 64), far);
    }
  });

  void it('keeps front faces in front under a mirroring node transform', async () => {
    const document = new Document();
    addQuad(document, { material: unlitMaterial(document, [1, 0, 0, 1]) }).setScale([-1, 1, 1]);
    assert.equal(pixel(await render(document, { cullBackFaces: true }), 64, 64)[3], 255);
  });

  void it('draws every instance of EXT_mesh_gpu_instancing', async () => {
    const document = new Document();
    const node = addQuad(document, { size: 0.5, material: unlitMaterial(document, [1, 0, 0, 1]) });
    const translations = document
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([-2, 0, 0, 2, 0, 0]))
      .setBuffer(document.getRoot().listBuffers()[0]);
    const instancing = document.createExtension(EXTMeshGPUInstancing).setRequired(true);
    node.setExtension(
      'EXT_mesh_gpu_instancing',
      instancing.createInstancedMesh().setAttribute('TRANSLATION', translations),
    );
    const image = await render(document);
    // Two quads side by side, framed together; nothing at the centre where the node itself is.
    assert.equal(pixel(image, 64, 64)[3], 0);
    const row = middleRow(image);
    assert.deepEqual(pixel(image, row.left + 3, 64), [255, 0, 0, 255]);
    assert.deepEqual(pixel(image, row.right - 3, 64), [255, 0, 0, 255]);
    assert.ok(Math.abs(row.left + row.right - 127) <= 1);
  });

  void it('poses skinned meshes with their joints and ignores the mesh node transform', async () => {
    const document = new Document();
    const buffer = document.createBuffer();
    const node = addQuad(document, { material: unlitMaterial(document, [1, 0, 0, 1]) }).setTranslation([
      100, 0, 0,
    ]);
    const primitive = node.getMesh()!.listPrimitives()[0];
    // Bottom vertices follow joint A, top vertices joint B.
    const joints = new Uint16Array([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    const weights = new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    primitive
      .setAttribute('JOINTS_0', document.createAccessor().setType('VEC4').setArray(joints).setBuffer(buffer))
      .setAttribute(
        'WEIGHTS_0',
        document.createAccessor().setType('VEC4').setArray(weights).setBuffer(buffer),
      );
    const jointA = document.createNode('a').setTranslation([5, 0, 0]);
    const jointB = document.createNode('b').setTranslation([0, 4, 0]);
    jointA.addChild(jointB);
    sceneOf(document).addChild(jointA);
    node.setSkin(document.createSkin().addJoint(jointA).addJoint(jointB));

    const result = await renderThumbnailDetailed(await toGlb(document), {
      width: 128,
      height: 128,
      ...FRONT,
    });
    // Corners at x 4…6, y −1 (joint A) and y 5 (joint A + B): centred on (5, 2, 0), taller than wide.
    result.camera.target.forEach((v, i) =>
      assert.ok(Math.abs(v - [5, 2, 0][i]) < 1e-6, `target ${result.camera.target}`),
    );
    const image = await decodeRgba(result.png);
    const { left, right } = middleRow(image);
    let top = 0;
    while (pixel(image, 64, top)[3] === 0) top++;
    assert.ok(128 - 2 * top > 2.5 * (right - left), `height ${128 - 2 * top}, width ${right - left}`);
  });

  void it('lights surfaces, with flat normals generated when the file has none', async () => {
    const document = new Document();
    const white = document.createMaterial().setBaseColorFactor([1, 1, 1, 1]);
    addQuad(document, { material: white, withoutNormals: true });
    const [r, g, b, a] = pixel(await render(document), 64, 64);
    assert.equal(a, 255);
    // Lit, but neither black nor blown out.
    for (const c of [r, g, b]) assert.ok(c > 60 && c < 250, `channel ${c}`);

    // Facing the key light (upper left) is brighter than facing away from it, and normals from
    // the file, turned by the node's rotation, shade like the generated face normals.
    const tilted = async (rotation: [number, number, number, number], withoutNormals: boolean) => {
      const tilt = new Document();
      addQuad(tilt, { material: tilt.createMaterial(), withoutNormals }).setRotation(rotation);
      return pixel(await render(tilt), 64, 64)[0];
    };
    const toward = await tilted([-0.2, -0.2, 0, 0.96], false);
    const away = await tilted([0.2, 0.2, 0, 0.96], false);
    assert.ok(toward > away + 10, `toward ${toward}, away ${away}`);
    assert.ok(Math.abs(toward - (await tilted([-0.2, -0.2, 0, 0.96], true))) <= 1);
    assert.ok(Math.abs(away - (await tilted([0.2, 0.2, 0, 0.96], true))) <= 1);
  });

  void it('replaces the material of a node whose group_id is bound', async () => {
    const document = new Document();
    const textured = unlitMaterial(document, [1, 1, 1, 1]).setBaseColorTexture(await stripeTexture(document));
    addQuad(document, { material: textured, vertexColor: [1, 1, 1, 1], groupId: 'model:0' });
    const glb = await toGlb(document);
    const options = { width: 64, height: 64, ...FRONT };
    const bound = await decodeRgba(
      await renderThumbnail(glb, {
        ...options,
        materialOverrides: new Map([['model:0', { color: [0, 1, 0], alpha: 1 }]]),
      }),
    );
    // The whole quad, both stripes, becomes the bound colour (lit, so not exactly 0,255,0).
    for (const x of [24, 40]) {
      const [r, g, b] = pixel(bound, x, 32);
      assert.ok(g > 150 && r < 60 && b < 60, `pixel ${x}: ${r},${g},${b}`);
    }
    const other = await decodeRgba(
      await renderThumbnail(glb, {
        ...options,
        materialOverrides: new Map([['model:1', { color: [0, 1, 0], alpha: 1 }]]),
      }),
    );
    assert.deepEqual(pixel(other, 24, 32).slice(0, 3), [255, 0, 0]);

    const translucent = await decodeRgba(
      await renderThumbnail(glb, {
        ...options,
        materialOverrides: new Map([['model:0', { color: [0, 1, 0], alpha: 0.25 }]]),
      }),
    );
    assert.ok(Math.abs(pixel(translucent, 32, 32)[3] - 64) <= 1);
  });

  void it('draws around what it cannot use and says so: broken textures, points', async () => {
    const document = new Document();
    const broken = document
      .createTexture('broken')
      .setImage(new Uint8Array([1, 2, 3, 4]))
      .setMimeType('image/png');
    addQuad(document, { material: unlitMaterial(document, [0, 0, 1, 1]).setBaseColorTexture(broken) });
    const positions = document
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0]))
      .setBuffer(document.getRoot().listBuffers()[0]);
    const lines = document.createPrimitive().setMode(1).setAttribute('POSITION', positions);
    sceneOf(document).addChild(document.createNode().setMesh(document.createMesh().addPrimitive(lines)));
    const result = await renderThumbnailDetailed(await toGlb(document), {
      width: 128,
      height: 128,
      ...FRONT,
    });
    assert.deepEqual(pixel(await decodeRgba(result.png), 64, 64), [0, 0, 255, 255]);
    assert.equal(result.warnings.length, 2);
    assert.match(result.warnings.join('\n'), /texture "broken" \(image\/png\) could not be decoded/);
    assert.match(result.warnings.join('\n'), /1 primitive\(s\) without triangles or points \(lines\)/);
  });

  void it('reports the camera it framed and the triangles it drew', async () => {
    const document = new Document();
    addQuad(document);
    addQuad(document, { center: [3, 0, 0] });
    const glb = await toGlb(document);
    const result = await renderThumbnailDetailed(glb, { width: 32, height: 32 });
    assert.equal(result.triangleCount, 4);
    // The camera reported is the one drawn with: given back, it draws the same image.
    const again = await renderThumbnailDetailed(glb, { width: 32, height: 32, camera: result.camera });
    assert.deepEqual(again.png, result.png);
    // Seen from the front, right and above, the pair spans the image's width but for the head-room.
    const image = await decodeRgba(result.png);
    const drawn = Array.from({ length: 32 * 32 }, (_, i) => i).filter(
      (i) => pixel(image, i % 32, i >> 5)[3] > 0,
    );
    const columns = drawn.map((i) => i % 32);
    assert.ok(
      Math.min(...columns) <= 1 && Math.max(...columns) >= 30,
      `columns ${Math.min(...columns)}..${Math.max(...columns)}`,
    );
  });
});

void describe('renderThumbnail drawing points', () => {
  void it('draws a point cloud in its vertex colours, hidden where a surface is in front', async () => {
    const document = new Document();
    const buffer = document.createBuffer();
    // A 40 × 40 grid of points one unit behind the origin, red on the left half, green on the right.
    const positions: number[] = [];
    const colours: number[] = [];
    for (let i = 0; i < 40; i++)
      for (let j = 0; j < 40; j++) {
        positions.push(-1 + i / 19.5, -1 + j / 19.5, -1);
        colours.push(i < 20 ? 1 : 0, i < 20 ? 0 : 1, 0);
      }
    const accessor = (array: number[]) =>
      document.createAccessor().setType('VEC3').setArray(new Float32Array(array)).setBuffer(buffer);
    const cloud = document
      .createPrimitive()
      .setMode(0)
      .setAttribute('POSITION', accessor(positions))
      .setAttribute('COLOR_0', accessor(colours));
    sceneOf(document).addChild(
      document.createNode('Scan').setMesh(document.createMesh().addPrimitive(cloud)),
    );
    const result = await renderThumbnailDetailed(await toGlb(document), {
      width: 128,
      height: 128,
      ...FRONT,
    });
    assert.equal(result.triangleCount, 0);
    const image = await decodeRgba(result.png);
    assert.ok(coverage(image) > 0.05, `coverage ${coverage(image)}`);
    // Covered pixels are red on the left half of the image and green on the right.
    const mean = (fromX: number, toX: number) => {
      const sum = [0, 0, 0];
      for (let y = 0; y < 128; y++)
        for (let x = fromX; x < toX; x++) {
          const [r, g, b, a] = pixel(image, x, y);
          if (a < 255) continue;
          sum[0] += r;
          sum[1] += g;
          sum[2] += b;
        }
      return sum;
    };
    const [lr, lg] = mean(0, 60);
    const [rr, rg] = mean(68, 128);
    assert.ok(lr > 10 * lg && rg > 10 * rr, `left ${lr}/${lg}, right ${rr}/${rg}`);

    // A blue quad in front of the middle hides the points behind it.
    addQuad(document, { size: 0.3, material: unlitMaterial(document, [0, 0, 1, 1]) });
    const covered = await decodeRgba(
      (await renderThumbnailDetailed(await toGlb(document), { width: 128, height: 128, ...FRONT })).png,
    );
    assert.deepEqual(pixel(covered, 64, 64), [0, 0, 255, 255]);
  });
});

void describe('renderThumbnail on bad input', () => {
  void it('rejects a scene without meshes with a clear Error', async () => {
    const document = new Document();
    sceneOf(document).addChild(document.createNode('empty'));
    await assert.rejects(renderThumbnail(await toGlb(document)), {
      message: /no triangles or points to draw/,
    });
  });

  void it('rejects bytes that are not a GLB, and a truncated GLB', async () => {
    await assert.rejects(renderThumbnail(new Uint8Array(0)), { message: /not a GLB/ });
    await assert.rejects(
      renderThumbnail(new TextEncoder().encode('{"asset":{"version":"2.0"}} not binary')),
      {
        message: /not a GLB/,
      },
    );
    const document = new Document();
    addQuad(document);
    const glb = await toGlb(document);
    await assert.rejects(renderThumbnail(glb.subarray(0, glb.length - 40)), { message: /GLB is truncated/ });
    // A well-formed container around a JSON chunk that is not glTF.
    const broken = new Uint8Array(glb);
    broken.fill(0x20, 20, 40);
    await assert.rejects(renderThumbnail(broken), { message: /cannot read GLB/ });
  });

  void it('rejects impossible sizes', async () => {
    const document = new Document();
    addQuad(document);
    const glb = await toGlb(document);
    await assert.rejects(renderThumbnail(glb, { width: 0 }), RangeError);
    await assert.rejects(renderThumbnail(glb, { supersample: 1.5 }), RangeError);
    await assert.rejects(renderThumbnail(glb, { width: 4096, supersample: 4 }), RangeError);
  });

  void it('survives degenerate triangles and NaN or infinite positions, framing only the finite geometry', async () => {
    const document = new Document();
    const buffer = document.createBuffer();
    // prettier-ignore
    const positions = new Float32Array([
      -1, -1, 0,   1, -1, 0,   0, 1, 0,             // 0–2: the one good triangle
      NaN, 0, 0,   1e30, Infinity, 0,   5, 5, NaN,  // 3–5: unusable vertices
      0, 0, 0,                                      // 6: repeated for zero-area triangles
      100, 100, 100,                                // 7: used by no triangle, must not move the camera
    ]);
    const indices = new Uint32Array([0, 1, 2, 3, 4, 5, 0, 3, 1, 6, 6, 6, 0, 6, 0, 2, 1, 4]);
    const primitive = document
      .createPrimitive()
      .setAttribute(
        'POSITION',
        document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer),
      )
      .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer))
      .setMaterial(unlitMaterial(document, [1, 0, 0, 1]));
    sceneOf(document).addChild(document.createNode().setMesh(document.createMesh().addPrimitive(primitive)));
    const result = await renderThumbnailDetailed(await toGlb(document), {
      width: 128,
      height: 128,
      ...FRONT,
    });
    for (const v of [...result.camera.eye, result.camera.near, result.camera.far])
      assert.ok(Number.isFinite(v));
    const image = await decodeRgba(result.png);
    assert.deepEqual(pixel(image, 64, 64), [255, 0, 0, 255]);
    assert.ok(coverage(image) > 0.05 && coverage(image) < 0.6, `coverage ${coverage(image)}`);
  });
});
