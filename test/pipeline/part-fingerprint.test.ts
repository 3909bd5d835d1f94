// A part's fingerprint: the geometry hash ignores where the part is, triangle and vertex order, welding and float
// noise below its 0.1 mm grid, and sees a real change; the transform, properties and material hashes see theirs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import type { Document, Node } from '@gltf-transform/core';
import { GEOMETRY_TOLERANCE } from '../../src/pipeline/geometry-hash.ts';
import { createFingerprintCache, fingerprintPart } from '../../src/pipeline/part-fingerprint.ts';
import type { PartProperties } from '../../src/pipeline/part-properties.ts';
import type { PartFingerprint } from '../../src/pipeline/types.ts';
import { addRawMesh, emptyDocument } from './documents.ts';

/** A closed box 1.2 × 0.3 × 2.75 m (whole millimetres, as a wall's are) with its low corner at the origin. */
function boxCorners(): number[][] {
  const size = [1.2, 0.3, 2.75];
  return Array.from({ length: 8 }, (_, corner) =>
    [0, 1, 2].map((axis) => ((corner >> axis) & 1) * size[axis]),
  );
}

/** The 12 triangles of the box, wound outwards, as corner numbers. */
const BOX_TRIANGLES = [
  [0, 2, 3],
  [0, 3, 1],
  [4, 5, 7],
  [4, 7, 6],
  [0, 1, 5],
  [0, 5, 4],
  [2, 6, 7],
  [2, 7, 3],
  [0, 4, 6],
  [0, 6, 2],
  [1, 3, 7],
  [1, 7, 5],
];

/** A document with one node drawing an indexed mesh of `corners` and `triangles`. */
function partOf(corners: number[][], triangles = BOX_TRIANGLES): { document: Document; node: Node } {
  const document = emptyDocument();
  const mesh = addRawMesh(document, corners.flat(), undefined, triangles.flat(), 'Box');
  const node = document.createNode('Box').setMesh(mesh);
  document.getRoot().listScenes()[0].addChild(node);
  return { document, node };
}

function fingerprint(node: Node, properties: PartProperties = {}): PartFingerprint {
  return fingerprintPart(node.getWorldMatrix(), node.getMesh()!, properties, createFingerprintCache());
}

const shift = (corners: number[][], by: number[]) => corners.map((corner) => corner.map((v, i) => v + by[i]));

void describe('the geometry hash', () => {
  const base = fingerprint(partOf(boxCorners()).node);

  void it('keeps through noise well under its grid, as float32 rounding 10 m from the origin makes', () => {
    // A deterministic ±2 µm on every coordinate: 1/50 of a cell.
    const noisy = boxCorners().map((corner, c) => corner.map((v, i) => v + 2e-6 * Math.sin(7 * c + 3 * i)));
    const found = fingerprint(partOf(noisy).node);
    assert.equal(found.geometry, base.geometry);
    assert.equal(found.transform, base.transform);
    assert.ok(GEOMETRY_TOLERANCE / 2e-6 >= 50);
  });

  void it('keeps a part moved by vertices baked in place (as IFC placements are), whose transform changes', () => {
    const moved = fingerprint(partOf(shift(boxCorners(), [12.3456, 0.5, -7.891])).node);
    assert.equal(moved.geometry, base.geometry);
    assert.notEqual(moved.transform, base.transform);
  });

  void it('keeps a part moved or turned by its node, whose transform changes', () => {
    const { node } = partOf(boxCorners());
    node.setTranslation([4, 0, -2]);
    const moved = fingerprint(node);
    node.setRotation([0, Math.SQRT1_2, 0, Math.SQRT1_2]);
    const turned = fingerprint(node);
    assert.equal(moved.geometry, base.geometry);
    assert.equal(turned.geometry, base.geometry);
    assert.equal(new Set([base.transform, moved.transform, turned.transform]).size, 3);
  });

  void it('ignores triangle order, the corner a triangle starts at, welding and the split into primitives', () => {
    const shuffled = [...BOX_TRIANGLES].reverse().map(([a, b, c], i) => (i % 2 ? [b, c, a] : [c, a, b]));
    assert.equal(fingerprint(partOf(boxCorners(), shuffled).node).geometry, base.geometry);
    // Unwelded: three corners of its own for every triangle.
    const corners = boxCorners();
    const soup = BOX_TRIANGLES.flatMap((triangle) => triangle.map((corner) => corners[corner]));
    const unwelded = partOf(
      soup,
      BOX_TRIANGLES.map((_, t) => [3 * t, 3 * t + 1, 3 * t + 2]),
    );
    assert.equal(fingerprint(unwelded.node).geometry, base.geometry);
    // Two primitives of six triangles each, as two materials would make.
    const { document, node } = partOf(boxCorners(), BOX_TRIANGLES.slice(0, 6));
    const rest = addRawMesh(document, corners.flat(), undefined, BOX_TRIANGLES.slice(6).flat());
    node.getMesh()!.addPrimitive(rest.listPrimitives()[0]);
    assert.equal(fingerprint(node).geometry, base.geometry);
  });

  void it('hashes a strip and a fan as the triangle list they draw', () => {
    const quad = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0];
    const hashOf = (mode: number, indices: number[]) => {
      const document = emptyDocument();
      const node = document.createNode('Quad').setMesh(addRawMesh(document, quad, mode, indices));
      return fingerprint(node).geometry;
    };
    const list = hashOf(Primitive.Mode.TRIANGLES, [0, 1, 2, 2, 1, 3]);
    assert.equal(hashOf(Primitive.Mode.TRIANGLE_STRIP, [0, 1, 2, 3]), list);
    assert.equal(hashOf(Primitive.Mode.TRIANGLE_FAN, [1, 3, 2, 0]), list);
    assert.notEqual(hashOf(Primitive.Mode.POINTS, [0, 1, 2, 3]), list);
  });

  void it('sees a corner moved by a millimetre, and a face turned inside out', () => {
    const corners = boxCorners();
    corners[7] = [corners[7][0], corners[7][1] + 0.001, corners[7][2]];
    assert.notEqual(fingerprint(partOf(corners).node).geometry, base.geometry);
    const flipped = BOX_TRIANGLES.map((triangle, t) => (t === 0 ? [...triangle].reverse() : triangle));
    assert.notEqual(fingerprint(partOf(boxCorners(), flipped).node).geometry, base.geometry);
  });

  void it('hashes the shape at its size in the scene: millimetres scaled by the node are the same metres', () => {
    const { node } = partOf(boxCorners().map((corner) => corner.map((v) => v * 1000)));
    node.setScale([0.001, 0.001, 0.001]);
    const millimetres = fingerprint(node);
    assert.equal(millimetres.geometry, base.geometry);
    assert.equal(millimetres.transform, base.transform);
    node.setScale([0.002, 0.002, 0.002]);
    assert.notEqual(fingerprint(node).geometry, base.geometry, 'twice the size');
  });
});

void describe('the other hashes', () => {
  void it('hashes properties whatever order they come in, and sees a value change', () => {
    const { node } = partOf(boxCorners());
    const a = fingerprint(node, {
      Pset_WallCommon: { IsExternal: true, FireRating: 'F90' },
      Element: { Class: 'IfcWall' },
    });
    const b = fingerprint(node, {
      Element: { Class: 'IfcWall' },
      Pset_WallCommon: { FireRating: 'F90', IsExternal: true },
    });
    const c = fingerprint(node, {
      Element: { Class: 'IfcWall' },
      Pset_WallCommon: { FireRating: 'F30', IsExternal: true },
    });
    assert.equal(a.properties, b.properties);
    assert.notEqual(a.properties, c.properties);
    assert.equal(a.geometry, c.geometry);
  });

  void it('hashes the materials of the primitives, and nothing else changes with them', () => {
    const { document, node } = partOf(boxCorners());
    const material = document.createMaterial('Plaster').setBaseColorFactor([0.9, 0.9, 0.85, 1]);
    node.getMesh()!.listPrimitives()[0].setMaterial(material);
    const before = fingerprint(node);
    material.setBaseColorFactor([0.5, 0.2, 0.2, 1]);
    const after = fingerprint(node);
    assert.notEqual(after.material, before.material);
    assert.deepEqual({ ...after, material: '' }, { ...before, material: '' });
    assert.match(after.material, /^[0-9a-f]{32}$/);
  });
});
