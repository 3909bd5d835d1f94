import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Primitive, PropertyType } from '@gltf-transform/core';
import type { Accessor, Document, GLTF, Material, Mesh, TypedArray } from '@gltf-transform/core';
import { dedup } from '@gltf-transform/functions';
import { dedupByHash } from '../../src/pipeline/dedup-by-hash.ts';
import { emptyDocument } from './documents.ts';

const ACCESSORS_ONLY = { propertyTypes: [PropertyType.ACCESSOR] };

/** A triangle mesh placed on a node of its own, from its position array and options. */
function addPart(
  document: Document,
  position: Accessor,
  extras: { indices?: Accessor; material?: Material; normal?: Accessor } = {},
): Mesh {
  const primitive = document.createPrimitive().setAttribute('POSITION', position);
  if (extras.indices) primitive.setIndices(extras.indices);
  if (extras.material) primitive.setMaterial(extras.material);
  if (extras.normal) primitive.setAttribute('NORMAL', extras.normal);
  const mesh = document.createMesh().addPrimitive(primitive);
  document.getRoot().listScenes()[0].addChild(document.createNode().setMesh(mesh));
  return mesh;
}

/** An accessor on the document's buffer. */
function accessor(
  document: Document,
  type: GLTF.AccessorType,
  array: TypedArray,
  normalized = false,
): Accessor {
  return document
    .createAccessor()
    .setType(type)
    .setArray(array)
    .setNormalized(normalized)
    .setBuffer(document.getRoot().listBuffers()[0]);
}

const TRIANGLE = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0];

void test('merges accessors with the same shape and bytes, wherever they are used', async () => {
  const document = emptyDocument();
  const a = addPart(document, accessor(document, 'VEC3', new Float32Array(TRIANGLE)));
  const b = addPart(document, accessor(document, 'VEC3', new Float32Array(TRIANGLE)));
  await document.transform(dedupByHash(ACCESSORS_ONLY));
  const positions = [a, b].map((mesh) => mesh.listPrimitives()[0].getAttribute('POSITION'));
  assert.equal(positions[0], positions[1]);
  assert.equal(document.getRoot().listAccessors().length, 1);
  assert.deepEqual(Array.from(positions[0]!.getArray()!), TRIANGLE);
});

void test('keeps accessors with the same bytes but another type, normalization or component type', async () => {
  const document = emptyDocument();
  const bytes = new Uint16Array([0, 1, 2, 3, 4, 5]);
  // Six shorts as three UV pairs or two positions: the same bytes, read otherwise.
  addPart(document, accessor(document, 'VEC3', new Float32Array(6)), {
    normal: accessor(document, 'VEC2', bytes.slice()),
  });
  addPart(document, accessor(document, 'VEC3', new Float32Array(6)), {
    normal: accessor(document, 'VEC3', bytes.slice()),
  });
  addPart(document, accessor(document, 'VEC3', new Float32Array(6)), {
    normal: accessor(document, 'VEC2', bytes.slice(), true),
  });
  // The same twelve bytes as six shorts and as three floats.
  addPart(document, accessor(document, 'VEC3', new Float32Array(6)), {
    normal: accessor(document, 'VEC3', new Float32Array(bytes.buffer.slice(0))),
  });
  const normals = () =>
    new Set(
      document
        .getRoot()
        .listMeshes()
        .map((mesh) => mesh.listPrimitives()[0].getAttribute('NORMAL')),
    );
  await document.transform(dedupByHash(ACCESSORS_ONLY));
  assert.equal(normals().size, 4);
  // The four zero-filled positions are one.
  const positions = new Set(
    document
      .getRoot()
      .listMeshes()
      .map((mesh) => mesh.listPrimitives()[0].getAttribute('POSITION')),
  );
  assert.equal(positions.size, 1);
});

void test('keeps accessors of the same shape one byte apart, and does not merge indices into attributes', async () => {
  const document = emptyDocument();
  const changed = new Float32Array(TRIANGLE);
  // One byte of the last float: the smallest change a comparison of whole values could miss.
  new Uint8Array(changed.buffer)[changed.byteLength - 1] ^= 1;
  const same = addPart(document, accessor(document, 'VEC3', new Float32Array(TRIANGLE)));
  const other = addPart(document, accessor(document, 'VEC3', changed));
  // Indices 0..3 as an index list, and the same four numbers as a scalar attribute.
  const indices = addPart(document, accessor(document, 'VEC3', new Float32Array(TRIANGLE)), {
    indices: accessor(document, 'SCALAR', new Uint32Array([0, 1, 2, 3])),
    normal: accessor(document, 'SCALAR', new Uint32Array([0, 1, 2, 3])),
  });
  await document.transform(dedupByHash(ACCESSORS_ONLY));
  const position = (mesh: Mesh) => mesh.listPrimitives()[0].getAttribute('POSITION');
  assert.notEqual(position(same), position(other));
  assert.equal(position(same), position(indices));
  const primitive = indices.listPrimitives()[0];
  assert.notEqual(primitive.getIndices(), primitive.getAttribute('NORMAL'));
  assert.equal(document.getRoot().listAccessors().length, 4);
});

void test('merges meshes that use the same accessors and materials, and equal materials', async () => {
  const document = emptyDocument();
  const red = () => document.createMaterial('red').setBaseColorFactor([1, 0, 0, 1]);
  const blue = document.createMaterial('blue').setBaseColorFactor([0, 0, 1, 1]);
  for (const material of [red(), red(), blue])
    addPart(document, accessor(document, 'VEC3', new Float32Array(TRIANGLE)), { material });
  await document.transform(dedupByHash());
  const root = document.getRoot();
  assert.equal(root.listMaterials().length, 2);
  assert.equal(root.listMeshes().length, 2);
  const nodes = root.listNodes();
  assert.equal(nodes[0].getMesh(), nodes[1].getMesh());
  assert.notEqual(nodes[0].getMesh(), nodes[2].getMesh());
  assert.deepEqual(nodes[2].getMesh()!.listPrimitives()[0].getMaterial()!.getBaseColorFactor(), [0, 0, 1, 1]);
});

void test('keeps names apart with keepUniqueNames, as dedup does', async () => {
  const document = emptyDocument();
  for (const name of ['steel', 'iron', 'steel'])
    addPart(document, accessor(document, 'VEC3', new Float32Array(TRIANGLE)), {
      material: document.createMaterial(name).setRoughnessFactor(0.3),
    });
  await document.transform(dedupByHash({ propertyTypes: [PropertyType.MATERIAL], keepUniqueNames: true }));
  assert.deepEqual(
    document
      .getRoot()
      .listMaterials()
      .map((material) => material.getName()),
    ['steel', 'iron'],
  );
});

void test('leaves what glTF-Transform’s dedup leaves, on a document with copies of every kind', async () => {
  const make = (): Document => {
    const document = emptyDocument();
    const image = new Uint8Array([
      137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 2, 0, 0, 0, 2,
    ]);
    const texture = () => document.createTexture().setImage(image.slice()).setMimeType('image/png');
    for (let i = 0; i < 60; i++) {
      const shape = i % 7;
      const material = document
        .createMaterial(`m${i}`)
        .setBaseColorFactor([shape % 3 === 0 ? 1 : 0.5, 0, 0, 1])
        .setDoubleSided(i % 2 === 0);
      if (i % 5 === 0) material.setBaseColorTexture(texture());
      const positions = new Float32Array(TRIANGLE).map((value) => value * (1 + (shape % 4)));
      addPart(document, accessor(document, 'VEC3', positions), {
        indices: accessor(document, 'SCALAR', new Uint16Array([0, 1, 2, 2, 1, shape % 2 === 0 ? 3 : 0])),
        material,
      });
    }
    return document;
  };
  const counts = (document: Document) => {
    const root = document.getRoot();
    return {
      accessors: root.listAccessors().length,
      meshes: root.listMeshes().length,
      materials: root.listMaterials().length,
      textures: root.listTextures().length,
    };
  };
  const theirs = make();
  await theirs.transform(dedup());
  const ours = make();
  await ours.transform(dedupByHash());
  assert.deepEqual(counts(ours), counts(theirs));
  // Copies of every kind were there to merge: 4 sizes and 2 index lists, 2 colours × 2 sides (± one texture).
  assert.deepEqual(counts(ours), { accessors: 6, meshes: 22, materials: 8, textures: 1 });
  // Every part draws the same triangles as before.
  const triangles = (document: Document) =>
    document
      .getRoot()
      .listNodes()
      .map((node) => {
        const primitive = node.getMesh()!.listPrimitives()[0];
        return [
          Array.from(primitive.getIndices()!.getArray()!),
          Array.from(primitive.getAttribute('POSITION')!.getArray()!),
          primitive.getMaterial()!.getBaseColorFactor(),
          primitive.getMaterial()!.getDoubleSided(),
          primitive.getMaterial()!.getBaseColorTexture() !== null,
          primitive.getMode() === Primitive.Mode.TRIANGLES,
        ];
      });
  assert.deepEqual(triangles(ours), triangles(make()));
  assert.deepEqual(triangles(ours), triangles(theirs));
});
