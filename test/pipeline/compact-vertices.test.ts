import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Document } from '@gltf-transform/core';
import type { Primitive } from '@gltf-transform/core';
import { cloneDocument, compactPrimitive } from '@gltf-transform/functions';
import { compactVertices } from '../../src/pipeline/lods/compact-vertices.ts';

/** A primitive of `vertices` vertices whose indices use every third one, in a scrambled order. */
function sparselyUsed(vertices: number): Document {
  const document = new Document();
  const buffer = document.createBuffer();
  const accessor = (
    type: 'VEC2' | 'VEC3' | 'VEC4',
    array: Float32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>,
  ) => document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const positions = new Float32Array(vertices * 3).map((_, i) => i * 0.5);
  const normals = new Float32Array(vertices * 3).map((_, i) => (i % 3 === 2 ? 1 : 0));
  const colors = new Uint8Array(vertices * 4).map((_, i) => (i * 7) % 256);
  const uvs = new Float32Array(vertices * 2).map((_, i) => i / (vertices * 2));
  const used: number[] = [];
  for (let v = 0; v < vertices; v += 3) used.push(v);
  // A fixed shuffle, so vertices are first used out of their order.
  const indices = new Uint32Array(Math.floor(used.length / 3) * 3 * 2);
  for (let i = 0; i < indices.length; i++) indices[i] = used[(i * 7919) % used.length];
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('NORMAL', accessor('VEC3', normals))
    .setAttribute('COLOR_0', accessor('VEC4', colors).setNormalized(true))
    .setAttribute('TEXCOORD_0', accessor('VEC2', uvs))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  document.createMesh().addPrimitive(primitive);
  return document;
}

function onlyPrimitive(document: Document): Primitive {
  return document.getRoot().listMeshes()[0].listPrimitives()[0];
}

/** Index and attribute arrays of a primitive, with their array types. */
function contents(primitive: Primitive) {
  return {
    indices: primitive.getIndices()?.getArray(),
    attributes: [...primitive.listSemantics()].sort().map((semantic) => {
      const accessor = primitive.getAttribute(semantic)!;
      return { semantic, normalized: accessor.getNormalized(), array: accessor.getArray() };
    }),
  };
}

for (const vertices of [900, 210_000]) {
  void test(`compactVertices leaves what compactPrimitive leaves (${vertices} vertices)`, () => {
    const mine = sparselyUsed(vertices);
    const theirs = cloneDocument(mine);
    let steps = 0;
    compactVertices(onlyPrimitive(mine), () => steps++);
    compactPrimitive(onlyPrimitive(theirs));
    const actual = contents(onlyPrimitive(mine));
    assert.deepEqual(actual, contents(onlyPrimitive(theirs)));
    assert.equal(actual.indices?.constructor, vertices / 3 <= 65534 ? Uint16Array : Uint32Array);
    assert.equal(onlyPrimitive(mine).getAttribute('POSITION')!.getCount(), vertices / 3);
    assert.ok(steps >= 5, `a step after the indices and each of the 4 attributes (${steps})`);
  });
}

void test('compactVertices gives a primitive its own accessors when another primitive shares them', () => {
  const document = sparselyUsed(900);
  const first = onlyPrimitive(document);
  const sharedPositions = first.getAttribute('POSITION')!;
  const before = sharedPositions.getArray();
  const second = document.createPrimitive().setAttribute('POSITION', sharedPositions);
  document.getRoot().listMeshes()[0].addPrimitive(second);

  compactVertices(first);

  assert.notEqual(
    first.getAttribute('POSITION'),
    sharedPositions,
    'the compacted primitive has a new accessor',
  );
  assert.equal(second.getAttribute('POSITION'), sharedPositions, 'the other keeps the shared one');
  assert.equal(sharedPositions.getArray(), before, 'whose vertices are untouched');
  assert.equal(first.getAttribute('POSITION')!.getCount(), 300);
  assert.equal(first.getAttribute('POSITION')!.getBuffer(), sharedPositions.getBuffer());
});

void test('compactVertices compacts an accessor serving two semantics once', () => {
  const mine = sparselyUsed(900);
  const primitive = onlyPrimitive(mine);
  // A unit sphere's normals are its positions, and de-duplication leaves one accessor for both.
  primitive.setAttribute('NORMAL', primitive.getAttribute('POSITION'));
  const theirs = cloneDocument(mine);
  compactVertices(primitive);
  compactPrimitive(onlyPrimitive(theirs));
  assert.deepEqual(contents(primitive), contents(onlyPrimitive(theirs)));
  assert.equal(primitive.getAttribute('NORMAL'), primitive.getAttribute('POSITION'));
});
