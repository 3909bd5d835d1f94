import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document, TypedArray } from '@gltf-transform/core';
import validator from 'gltf-validator';
import sharp from 'sharp';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { glbBytes } from '../../src/gltf/glb-bytes.ts';
import { addSphere, emptyDocument, readGlb } from './documents.ts';

/** A document with what a writer must lay out: large and small accessors side by side, an index buffer view shared
 * by both, a vertex colour of 3 bytes a vertex (padded by the writer), an animation's time input (with bounds),
 * named accessors and a texture image among the buffer views. */
async function mixedDocument(): Promise<Document> {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const big = addSphere(document, 96, 64, 2, 'Big');
  const small = addSphere(document, 4, 3, 0.5, 'Small');
  const bigPrimitive = big.listPrimitives()[0];
  bigPrimitive.getAttribute('POSITION')?.setName('big positions');
  const count = bigPrimitive.getAttribute('POSITION')?.getCount() ?? 0;
  const colors = new Uint8Array(count * 3).map((_, i) => (i * 37) % 256);
  bigPrimitive.setAttribute(
    'COLOR_0',
    document.createAccessor('colors').setType('VEC3').setArray(colors).setNormalized(true).setBuffer(buffer),
  );
  const png = await sharp({ create: { width: 4, height: 4, channels: 4, background: '#c04020' } })
    .png()
    .toBuffer();
  const texture = document.createTexture('swatch').setImage(new Uint8Array(png)).setMimeType('image/png');
  bigPrimitive.setMaterial(document.createMaterial('painted').setBaseColorTexture(texture));
  const scene = document.getRoot().listScenes()[0];
  const bigNode = document.createNode('big').setMesh(big);
  scene.addChild(bigNode).addChild(document.createNode('small').setMesh(small).setTranslation([3, 0, 0]));
  const frames = 2000;
  const times = new Float32Array(frames).map((_, i) => i / 30);
  const rotations = new Float32Array(frames * 4).map((_, i) => (i % 4 === 3 ? 1 : 0));
  const sampler = document
    .createAnimationSampler()
    .setInput(document.createAccessor('times').setType('SCALAR').setArray(times).setBuffer(buffer))
    .setOutput(document.createAccessor().setType('VEC4').setArray(rotations).setBuffer(buffer));
  document
    .createAnimation('spin')
    .addSampler(sampler)
    .addChannel(
      document.createAnimationChannel().setTargetNode(bigNode).setTargetPath('rotation').setSampler(sampler),
    );
  return document;
}

/** Every accessor array of a document, in a stable order: mesh, primitive, semantic; then animation samplers. */
function accessorArrays(
  document: Document,
): Map<string, { array: TypedArray | null; name: string; normalized: boolean }> {
  const out = new Map<string, { array: TypedArray | null; name: string; normalized: boolean }>();
  for (const mesh of document.getRoot().listMeshes()) {
    mesh.listPrimitives().forEach((primitive, p) => {
      for (const semantic of primitive.listSemantics()) {
        const accessor = primitive.getAttribute(semantic);
        if (accessor) {
          out.set(`${mesh.getName()}/${p}/${semantic}`, {
            array: accessor.getArray(),
            name: accessor.getName(),
            normalized: accessor.getNormalized(),
          });
        }
      }
      const indices = primitive.getIndices();
      if (indices)
        out.set(`${mesh.getName()}/${p}/indices`, {
          array: indices.getArray(),
          name: indices.getName(),
          normalized: false,
        });
    });
  }
  for (const animation of document.getRoot().listAnimations()) {
    animation.listSamplers().forEach((sampler, s) => {
      for (const [role, accessor] of [
        ['input', sampler.getInput()],
        ['output', sampler.getOutput()],
      ] as const) {
        if (accessor)
          out.set(`${animation.getName()}/${s}/${role}`, {
            array: accessor.getArray(),
            name: accessor.getName(),
            normalized: false,
          });
      }
    });
  }
  return out;
}

/** The JSON chunk of a GLB. */
function glbJson(glb: Uint8Array): {
  accessors: { name?: string; min?: number[]; max?: number[]; count: number }[];
} {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const length = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as ReturnType<typeof glbJson>;
}

void test('a GLB written with its large accessors copied in steps reads back as glTF-Transform writes it', async () => {
  const document = await mixedDocument();
  const io = await createNodeIO();
  const before = accessorArrays(document);
  let steps = 0;
  const glb = await glbBytes(io, document, {
    largeAccessorBytes: 1024,
    stepBytes: 4096,
    onStep: () => steps++,
  });
  const reference = await io.writeBinary(document);

  const issues = async (bytes: Uint8Array) =>
    (await validator.validateBytes(bytes, { maxIssues: 100 })).issues.messages.map(
      ({ code, severity, pointer }) => `${severity} ${code} ${pointer ?? ''}`,
    );
  const found = await issues(glb);
  assert.equal(
    found.filter((issue) => /^[01] /.test(issue)).length,
    0,
    `no error or warning: ${found.join('; ')}`,
  );
  assert.deepEqual(found, await issues(reference), 'the validator says of it what it says of the reference');

  const mine = accessorArrays(await readGlb(glb));
  const theirs = accessorArrays(await readGlb(reference));
  assert.deepEqual([...mine.keys()].sort(), [...theirs.keys()].sort());
  for (const [key, expected] of theirs) {
    const actual = mine.get(key);
    assert.deepEqual(actual, expected, `${key} reads back as the reference writer's`);
  }
  const bounds = (json: ReturnType<typeof glbJson>) =>
    json.accessors
      .filter((accessor) => accessor.min)
      .map(({ name, min, max, count }) => ({ name, min, max, count }));
  assert.deepEqual(
    bounds(glbJson(glb)).sort((a, b) => a.count - b.count),
    bounds(glbJson(reference)).sort((a, b) => a.count - b.count),
    'positions and animation times carry the same bounds',
  );
  assert.ok(steps >= 10, `the copy reported ${steps} steps`);

  const after = accessorArrays(document);
  for (const [key, entry] of before) {
    assert.equal(after.get(key)?.array, entry.array, `${key} keeps its own array`);
    assert.equal(after.get(key)?.name, entry.name, `${key} keeps its own name`);
  }
});

void test('a GLB with no accessor above the size written by glTF-Transform alone matches it', async () => {
  const document = await mixedDocument();
  const io = await createNodeIO();
  const glb = await glbBytes(io, document, { largeAccessorBytes: Number.MAX_SAFE_INTEGER });
  assert.deepEqual(
    accessorArrays(await readGlb(glb)),
    accessorArrays(await readGlb(await io.writeBinary(document))),
  );
  const report = await validator.validateBytes(glb, { maxIssues: 100 });
  assert.equal(report.issues.numErrors + report.issues.numWarnings, 0);
});
