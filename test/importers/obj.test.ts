// The JavaScript OBJ reader: the samples as assimp read them, every statement form built in code, errors and limits.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Document, Primitive } from '@gltf-transform/core';
import type { IOR } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { createAssimpImporter } from '../../src/pipeline/import/assimp/import-assimp.ts';
import { createObjImporter, importObj } from '../../src/pipeline/import/obj/import-obj.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { srgbToLinear } from '../../src/pipeline/import/mesh-document.ts';
import { DEFAULT_MATERIAL } from '../../src/pipeline/import/obj/obj-materials.ts';
import { LimitError } from '../../src/pipeline/limits.ts';
import { ConversionError } from '../../src/pipeline/types.ts';
import type { PartInfo } from '../../src/pipeline/types.ts';
import { errorsOf, MODELS, recordingContext, validate } from './support.ts';

let scratch: string;
before(async () => void (scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-obj-'))));
after(() => rm(scratch, { recursive: true, force: true }));

/** Writes files into a fresh folder and returns the path of the first. */
async function folderWith(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await mkdtemp(path.join(scratch, 'model-'));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
  return path.join(dir, Object.keys(files)[0]);
}

async function readObj(file: string, importer = importObj, maxTriangles?: number) {
  const context = { ...recordingContext(), maxTriangles };
  const result = await importer.read({ file, dir: path.dirname(file), format: 'obj' }, context);
  return { ...result, lines: context.lines };
}

function partsOf(document: Document): PartInfo[] {
  return extractParts(document, { modelId: 'm' }, recordingContext());
}

function primitives(document: Document): Primitive[] {
  return document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives());
}

void test('the registry reads OBJ with the JavaScript reader', () => {
  assert.equal(importerFor('obj'), importObj);
});

for (const sample of ['obj/spider/spider.obj', 'obj/spot_triangulated.obj']) {
  void test(`${sample} imports as assimp read it: parts, names, paths, triangles, bounds, materials`, async () => {
    const file = path.join(MODELS, sample);
    const ours = await readObj(file);
    const theirs = await readObj(file, createAssimpImporter());
    assert.equal(ours.sourceTriangleCount, theirs.sourceTriangleCount);
    const [mine, reference] = [partsOf(ours.document), partsOf(theirs.document)];
    const summary = (parts: PartInfo[]) =>
      parts.map(({ name, path, triangle_count }) => ({ name, path, triangle_count }));
    assert.deepEqual(summary(mine), summary(reference));
    mine.forEach((part, index) => {
      const other = reference[index].bounds;
      const size = Math.max(...other.max.map((max, axis) => max - other.min[axis]));
      for (const key of ['min', 'max'] as const) {
        part.bounds[key].forEach((value, axis) =>
          assert.ok(Math.abs(value - other[key][axis]) <= size * 1e-6, `${part.name} ${key}[${axis}]`),
        );
      }
    });
    // assimp takes Kd as linear; ours reads it as the sRGB it is in practice and makes it linear.
    const materialsOf = (document: Document, kdAsSrgb: boolean) =>
      primitives(document).map((primitive) => {
        const material = primitive.getMaterial()!;
        const [r, g, b, a] = material.getBaseColorFactor();
        // The default grey of faces without a material is linear in both.
        const kd =
          kdAsSrgb && material.getName() !== DEFAULT_MATERIAL ? srgbToLinear : (value: number) => value;
        return {
          name: material.getName(),
          color: [kd(r), kd(g), kd(b), a].map((value) => Math.round(value * 1000) / 1000),
          roughness: material.getRoughnessFactor(),
          metallic: material.getMetallicFactor(),
          texture: material.getBaseColorTexture()?.getImage()?.byteLength,
          attributes: primitive.listSemantics().sort(),
        };
      });
    assert.deepEqual(materialsOf(ours.document, false), materialsOf(theirs.document, true));
    assert.deepEqual(errorsOf(await validate(ours.document)), []);
  });
}

/** An OBJ using every index form, relative indices, vertex colours, CRLF line ends and continued lines. */
const EVERY_FORM = [
  '# every statement form',
  'mtllib forms.mtl',
  'v 0 0 0 1 0 0',
  'v 1 0 0 0 1 0',
  'v 1 1 0 0 0 1',
  'v 0 1 0 0.5 0.5 0.5',
  'vt 0 0',
  'vt 1 0',
  'vt 1 1',
  'vt 0 1',
  'vn 0 0 2',
  'o plain',
  'f 1 2 3',
  'o textured',
  'usemtl red',
  'f 1/1 2/2 3/3 4/4',
  'g normals',
  'f 1//1 2//1 \\',
  '  3//1',
  'g everything',
  's 1',
  'f -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1',
  'l 1 2',
  'p 3',
  '',
].join('\r\n');

const FORMS_MTL = `newmtl red
Kd 1 0 0
Ks 0.5 0.5 0.5
Ns 250
d 0.5
Ni 1.33
Ke 0.1 0.2 0.3
map_Kd -s 2 2 1 -clamp on red texture.png
`;

/** The smallest PNG: one opaque red pixel. */
const RED_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

void test('every face form, relative indices, colours, CRLF and continued lines read as written', async () => {
  const file = await folderWith({
    'forms.obj': EVERY_FORM,
    'forms.mtl': FORMS_MTL,
    'red texture.png': RED_PIXEL,
  });
  const { document, sourceTriangleCount, lines } = await readObj(file);
  // A triangle, two quads cut in two, and a continued triangle.
  assert.equal(sourceTriangleCount, 6);
  assert.deepEqual(
    partsOf(document).map(({ name, path, triangle_count }) => ({ name, path, triangle_count })),
    [
      { name: 'plain', path: 'forms.obj', triangle_count: 1 },
      { name: 'textured', path: 'forms.obj', triangle_count: 2 },
      { name: 'normals', path: 'forms.obj', triangle_count: 1 },
      { name: 'everything', path: 'forms.obj', triangle_count: 2 },
    ],
  );
  assert.ok(lines.some((line) => /warn: import-obj: 2 line and point statements/.test(line)));
  const [plain, textured, normals, everything] = primitives(document);
  assert.deepEqual(plain.listSemantics().sort(), ['COLOR_0', 'POSITION']);
  assert.deepEqual(textured.listSemantics().sort(), ['COLOR_0', 'POSITION', 'TEXCOORD_0']);
  // `usemtl red` carries over to the group without `vt`: its textured material gets zero coordinates.
  assert.deepEqual(normals.listSemantics().sort(), ['COLOR_0', 'NORMAL', 'POSITION', 'TEXCOORD_0']);
  assert.deepEqual(everything.listSemantics().sort(), ['COLOR_0', 'NORMAL', 'POSITION', 'TEXCOORD_0']);

  // Colours are display values in the file and linear in glTF; the half grey becomes about 0.214.
  const colors = everything.getAttribute('COLOR_0')!;
  const positions = everything.getAttribute('POSITION')!;
  for (let i = 0; i < positions.getCount(); i++) {
    const [x, y] = positions.getElement(i, [0, 0, 0]);
    const color = colors.getElement(i, [0, 0, 0, 0]).map((value) => Math.round(value * 1000) / 1000);
    const expected = {
      '0,0': [1, 0, 0, 1],
      '1,0': [0, 1, 0, 1],
      '1,1': [0, 0, 1, 1],
      '0,1': [0.214, 0.214, 0.214, 1],
    };
    assert.deepEqual(color, expected[`${x},${y}` as keyof typeof expected]);
    // Texture coordinates follow the corners, v turned to glTF's top-left origin.
    assert.deepEqual(everything.getAttribute('TEXCOORD_0')!.getElement(i, [0, 0]), [x, 1 - y]);
    // `vn 0 0 2` is made unit length.
    assert.deepEqual(everything.getAttribute('NORMAL')!.getElement(i, [0, 0, 0]), [0, 0, 1]);
  }
  // Four corners shared by the quad's two triangles: one vertex each.
  assert.equal(positions.getCount(), 4);
  assert.equal(everything.getIndices()!.getCount(), 6);

  const red = textured.getMaterial()!;
  assert.equal(red.getName(), 'red');
  assert.deepEqual(red.getBaseColorFactor(), [1, 0, 0, 0.5]);
  assert.equal(red.getAlphaMode(), 'BLEND');
  assert.ok(Math.abs(red.getRoughnessFactor() - (1 - Math.sqrt(0.25) * 0.5)) < 1e-6);
  assert.deepEqual(red.getEmissiveFactor(), [0.1, 0.2, 0.3]);
  assert.ok(Math.abs(red.getExtension<IOR>('KHR_materials_ior')!.getIOR() - 1.33) < 1e-6);
  assert.equal(red.getBaseColorTexture()?.getMimeType(), 'image/png');
  assert.equal(plain.getMaterial()!.getName(), 'DefaultMaterial');
  assert.deepEqual(errorsOf(await validate(document)), []);
});

void test('chunk boundaries anywhere, even inside a continued line, change nothing', async () => {
  const file = await folderWith({ 'forms.obj': EVERY_FORM, 'forms.mtl': FORMS_MTL });
  const summary = async (chunkBytes: number) => {
    const fractions: number[] = [];
    const importer = createObjImporter({ chunkBytes });
    const result = await importer.read(
      { file, dir: path.dirname(file), format: 'obj' },
      { ...recordingContext(), onProgress: (fraction) => void fractions.push(fraction) },
    );
    const arrays = primitives(result.document).map((primitive) =>
      primitive.listAttributes().map((attribute) => [...attribute.getArray()!]),
    );
    return { parts: partsOf(result.document), arrays, fractions };
  };
  const whole = await summary(1 << 20);
  for (const chunkBytes of [1, 2, 3, 5, 8, 13, 21, 34]) {
    const small = await summary(chunkBytes);
    assert.deepEqual(small.parts, whole.parts, `${chunkBytes}-byte chunks`);
    assert.deepEqual(small.arrays, whole.arrays, `${chunkBytes}-byte chunks`);
    // Progress moves with the bytes read: one report per chunk, never backwards.
    assert.ok(small.fractions.length > whole.fractions.length);
    assert.ok(small.fractions.every((fraction, i) => i === 0 || fraction >= small.fractions[i - 1]));
  }
});

void test('old Mac line ends (a lone CR) and a UTF-8 byte-order mark read as the same model, at any chunk size', async () => {
  const summary = async (file: string, chunkBytes: number) => {
    const result = await createObjImporter({ chunkBytes }).read(
      { file, dir: path.dirname(file), format: 'obj' },
      recordingContext(),
    );
    const arrays = primitives(result.document).map((primitive) =>
      primitive.listAttributes().map((attribute) => [...attribute.getArray()!]),
    );
    return { parts: partsOf(result.document), arrays };
  };
  const unix = await summary(await folderWith({ 'forms.obj': EVERY_FORM, 'forms.mtl': FORMS_MTL }), 1 << 20);
  const variants = {
    'lone CR': EVERY_FORM.replace(/\r?\n/g, '\r'),
    'byte-order mark': `\uFEFF${EVERY_FORM}`,
  };
  for (const [variant, text] of Object.entries(variants)) {
    const file = await folderWith({ 'forms.obj': text, 'forms.mtl': FORMS_MTL });
    for (const chunkBytes of [1 << 20, 1, 2, 3, 5, 8, 13]) {
      const read = await summary(file, chunkBytes);
      assert.deepEqual(read.parts, unix.parts, `${variant}, ${chunkBytes}-byte chunks`);
      assert.deepEqual(read.arrays, unix.arrays, `${variant}, ${chunkBytes}-byte chunks`);
    }
  }
});

void test('a concave polygon is cut by earcut and a polygon on a line becomes a fan, as before', async () => {
  const file = await folderWith({
    'shapes.obj': [
      'v 0 0 0',
      'v 4 0 0',
      'v 4 1 0',
      'v 1 1 0',
      'v 1 4 0',
      'v 0 4 0',
      'f 1 2 3 4 5 6',
      'v 5 0 0',
      'v 6 0 0',
      'v 7 0 0',
      'v 8 0 0',
      'f -4 -3 -2 -1',
      '',
    ].join('\n'),
  });
  const { document, sourceTriangleCount } = await readObj(file);
  assert.equal(sourceTriangleCount, 4 + 2);
  const positions = primitives(document)[0].getAttribute('POSITION')!;
  const indices = primitives(document)[0].getIndices()!;
  let area = 0;
  for (let t = 0; t < 12; t += 3) {
    const [a, b, c] = [0, 1, 2].map((k) => positions.getElement(indices.getScalar(t + k), [0, 0, 0]));
    area += ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2;
  }
  // The L's area, every triangle wound like the polygon.
  assert.equal(area, 7);
});

void test('a face referring past the vertices is damaged, naming the line', async () => {
  const cases: [string, RegExp][] = [
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n', /line 5: a face refers to vertex 4; there are 3\)$/],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n', /line 4: a face refers to vertex -4; there are 3\)$/],
    [
      'v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n',
      /line 5: a face refers to texture coordinate 2; there is 1\)$/,
    ],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n', /line 4: a face refers to vertex 0; there are 3\)$/],
    ['v 0 0 0\nv 1 0 x\n', /line 2: `v` needs x, y and z\)$/],
    [
      'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n',
      /line 4: a face corner is not v, v\/vt, v\/\/vn or v\/vt\/vn\)$/,
    ],
  ];
  for (const [text, message] of cases) {
    const file = await folderWith({ 'bad.obj': text });
    await assert.rejects(readObj(file), (error: Error) => {
      assert.ok(error instanceof ConversionError);
      assert.match(error.message, /^Could not read the OBJ file: the file is damaged \(/);
      assert.match(error.message, message);
      return true;
    });
  }
});

void test('a model over the triangle limit fails naming the limit and its size, before the file is read whole', async () => {
  const faces = 'v 0 0 0\nv 1 0 0\nv 0 1 0\n' + 'f 1 2 3\n'.repeat(5000) + 'v 0 0 1\nf 1 2 5\nf 1 2 99\n';
  const file = await folderWith({ 'big.obj': faces });
  await assert.rejects(readObj(file, createObjImporter({ chunkBytes: 4096 }), 1000), (error: Error) => {
    assert.ok(error instanceof LimitError);
    // Reported when the limit is passed, not at the damaged face at the end.
    assert.equal(
      error.message,
      'The model has 1,001 triangles, more than the limit of 1,000 (CONVERSION_MAX_TRIANGLES)',
    );
    return true;
  });
});

void test('a file of vertices only is a point cloud; a binary file is not OBJ', async () => {
  const cloud = await readObj(await folderWith({ 'scan.obj': 'v 0 0 0 1 1 1\nv 1 2 3 0 0 0\n' }));
  const [points] = primitives(cloud.document);
  assert.equal(points.getMode(), 0);
  assert.equal(points.getAttribute('POSITION')!.getCount(), 2);
  assert.deepEqual(partsOf(cloud.document)[0].name, 'scan');

  const noise = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251);
  await assert.rejects(
    readObj(await folderWith({ 'noise.obj': noise })),
    /^ConversionError: Could not read the OBJ file: (no geometry found|the file is damaged .+)$/,
  );
  const longLine = await folderWith({ 'long.obj': 'v' + ' 1'.repeat(100_000) });
  await assert.rejects(
    readObj(longLine, createObjImporter({ chunkBytes: 1024, maxLineBytes: 65_536 })),
    /^ConversionError: Could not read the OBJ file: the file is not OBJ text \(a line longer than/,
  );
});

void test('missing material libraries and textures warn and the model still imports', async () => {
  const file = await folderWith({
    'lost.obj':
      'mtllib lost.mtl\nmtllib here.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl gone\nf 1 2 3\nusemtl wood\nf 3 2 1\n',
    'here.mtl': 'newmtl wood\nKd 0.5 0.3 0.1\nmap_Kd C:\\textures\\wood.jpg\n',
  });
  const { document, lines } = await readObj(file);
  assert.deepEqual(
    lines.filter((line) => line.startsWith('warn')),
    [
      'warn: import-obj: material library "lost.mtl" is not among the uploaded files',
      'warn: import-obj: material "gone" is not defined in any material library; it stays grey',
      'warn: import-obj: texture "C:\\textures\\wood.jpg" is not among the uploaded files; it is left out',
    ],
  );
  assert.deepEqual(
    primitives(document).map((primitive) => primitive.getMaterial()!.getName()),
    ['gone', 'wood'],
  );
  const wood = primitives(document)[1].getMaterial()!.getBaseColorFactor();
  [0.5, 0.3, 0.1, 1]
    .map((value, index) => (index < 3 ? srgbToLinear(value) : value))
    .forEach((expected, index) =>
      assert.ok(
        Math.abs(wood[index] - expected) < 1e-6,
        `Kd ${index}: ${wood[index]} is sRGB ${expected} made linear`,
      ),
    );
});

/** A grey PNG of `width` × `height` whose pixel at x, y is `value(x, y)`. */
async function greyPng(
  width: number,
  height: number,
  value: (x: number, y: number) => number,
): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = value(x, y);
  return sharp(pixels, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
}

void test('map_Pr and map_Pm become one metallic-roughness texture: roughness in G, metalness in B', async () => {
  const obj = 'mtllib pbr.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n';
  const file = await folderWith({
    'pbr.obj': `${obj}usemtl both\nf 1/1 2/2 3/3\nusemtl rough\nf 3/3 2/2 1/1\nusemtl lost\nf 1/1 3/3 2/2\n`,
    'pbr.mtl': [
      'newmtl both',
      'Kd 0.5 0.5 0.5',
      'Pr 0.3',
      'Pm 0.2',
      'map_Pr rough.png',
      'map_Pm -clamp on metal.png',
      'newmtl rough',
      'Pm 0.25',
      'map_Pr rough.png',
      'newmtl lost',
      'Pm 0.4',
      'map_Pr rough.png',
      'map_Pm absent.png',
      '',
    ].join('\n'),
    // Different sizes: the metalness map is stretched over the roughness map's.
    'rough.png': await greyPng(4, 2, (x) => x * 60),
    'metal.png': await greyPng(2, 1, (x) => (x === 0 ? 0 : 255)),
  });
  const { document } = await readObj(file);
  const [both, rough, lost] = primitives(document).map((primitive) => primitive.getMaterial()!);

  const texture = both.getMetallicRoughnessTexture()!;
  assert.ok(texture, 'the packed texture');
  assert.equal(texture.getMimeType(), 'image/png');
  const { data, info } = await sharp(texture.getImage()!).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([info.width, info.height, info.channels], [4, 2, 3]);
  for (let x = 0; x < 4; x++) assert.equal(data[x * 3 + 1], x * 60, `G at x ${x}: the roughness map`);
  // The metalness map stretched (interpolated between): its ends stay as they were.
  assert.equal(data[2], 0, 'B at the left: not metal');
  assert.equal(data[3 * 3 + 2], 255, 'B at the right: metal');
  // The maps hold the values: factors 1, whatever Pr and Pm said.
  assert.equal(both.getRoughnessFactor(), 1);
  assert.equal(both.getMetallicFactor(), 1);

  // Roughness alone: metalness stays the Pm factor over a white blue channel.
  assert.ok(rough.getMetallicRoughnessTexture(), 'the roughness map packed alone');
  assert.equal(rough.getRoughnessFactor(), 1);
  assert.equal(rough.getMetallicFactor(), 0.25);
  const alone = await sharp(rough.getMetallicRoughnessTexture()!.getImage()!).raw().toBuffer();
  assert.equal(alone[2], 255, 'B white');
  assert.equal(alone[3 * 3 + 1], 180, 'G the roughness map');
  // A named metalness map that cannot be read leaves metalness to its factor, not to a white channel.
  assert.ok(lost.getMetallicRoughnessTexture(), 'the roughness map still packed');
  assert.equal(lost.getRoughnessFactor(), 1);
  assert.equal(lost.getMetallicFactor(), 0.4);
  assert.deepEqual(errorsOf(await validate(document)), []);
});
