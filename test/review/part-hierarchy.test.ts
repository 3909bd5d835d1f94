// The node tree behind BCF components that are no parts: an aggregate stands for the parts under it (at any depth),
// a node with a mesh for itself, and what is not a GLB, or a tree that loops or runs deep, gives what it can.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPartHierarchy } from '../../src/review/bcf/part-hierarchy.ts';

/** A GLB holding only this JSON chunk (no binary chunk: the tree needs none). */
function glbOf(json: unknown): Uint8Array {
  let text = JSON.stringify(json);
  while (text.length % 4 !== 0) text += ' ';
  const chunk = Buffer.from(text, 'utf8');
  const glb = Buffer.alloc(20 + chunk.length);
  glb.writeUInt32LE(0x46546c67, 0);
  glb.writeUInt32LE(2, 4);
  glb.writeUInt32LE(glb.length, 8);
  glb.writeUInt32LE(chunk.length, 12);
  glb.writeUInt32LE(0x4e4f534a, 16);
  chunk.copy(glb, 20);
  return glb;
}

const node = (id: string, type: string, children: number[] = [], mesh?: number) => ({
  name: id,
  children,
  ...(mesh === undefined ? {} : { mesh }),
  extras: { group_id: id, ifc_type: type },
});

void describe('part hierarchy from LOD 0', () => {
  void it('gives each object the parts under it, and each part itself', () => {
    const glb = glbOf({
      nodes: [
        node('storey', 'IfcBuildingStorey', [1, 4]),
        node('wall', 'IfcCurtainWall', [2, 3]),
        node('plate', 'IfcPlate', [], 0),
        node('member', 'IfcMember', [], 0),
        node('space', 'IfcSpace', [5]),
        node('chair', 'IfcFurniture', [], 0),
        node('empty', 'IfcSpace'),
      ],
    });
    const parts = new Set(['plate', 'member', 'chair']);
    const tree = readPartHierarchy(glb, (id) => parts.has(id));
    assert.deepEqual(tree.get('wall'), { type: 'IfcCurtainWall', parts: ['plate', 'member'] });
    assert.deepEqual(tree.get('space'), { type: 'IfcSpace', parts: ['chair'] });
    assert.deepEqual(tree.get('storey')?.parts, ['plate', 'member', 'chair']);
    assert.deepEqual(tree.get('plate')?.parts, ['plate']);
    assert.equal(tree.has('empty'), false, 'an object with no part under it is left out');
  });

  void it('reads a chain 100,000 nodes deep and a loop without overflowing or repeating', () => {
    const depth = 100_000;
    const nodes = Array.from({ length: depth }, (_, index) =>
      index === depth - 1
        ? node(`n${index}`, 'IfcPlate', [], 0)
        : node(`n${index}`, 'IfcElementAssembly', [index + 1]),
    );
    assert.deepEqual(readPartHierarchy(glbOf({ nodes }), () => true).get('n0')?.parts, [`n${depth - 1}`]);
    const loop = [node('a', 'IfcElementAssembly', [1]), node('b', 'IfcPlate', [0], 0)];
    assert.deepEqual(readPartHierarchy(glbOf({ nodes: loop }), () => true).get('a')?.parts, ['b']);
  });

  void it('reads the parts a batched level draws batched, listed on their parent or kept marked', () => {
    const listed = (id: string, type: string) => ({ name: id, extras: { group_id: id, ifc_type: type } });
    const glb = glbOf({
      nodes: [
        node('storey', 'IfcBuildingStorey', [1, 2]),
        {
          ...node('wall', 'IfcCurtainWall'),
          extras: {
            group_id: 'wall',
            ifc_type: 'IfcCurtainWall',
            batched_children: [
              listed('plate', 'IfcPlate'),
              listed('member', 'IfcMember'),
              'not a part',
              null,
            ],
          },
        },
        // A level written before the parts were listed kept a marked node for each.
        { ...node('chair', 'IfcFurniture'), extras: { group_id: 'chair', drawn_by_features: true } },
      ],
    });
    const parts = new Set(['plate', 'member', 'chair']);
    const tree = readPartHierarchy(glb, (id) => parts.has(id));
    assert.deepEqual(tree.get('wall'), { type: 'IfcCurtainWall', parts: ['plate', 'member'] });
    assert.deepEqual(tree.get('storey')?.parts, ['plate', 'member', 'chair']);
    assert.deepEqual(tree.get('plate'), { type: 'IfcPlate', parts: ['plate'] });
    assert.deepEqual(tree.get('chair')?.parts, ['chair']);
  });

  void it('knows no tree in what is not a GLB', () => {
    assert.equal(readPartHierarchy(new Uint8Array([1, 2, 3]), () => true).size, 0);
    assert.equal(readPartHierarchy(Buffer.from('glTF not really a GLB file at all'), () => true).size, 0);
  });
});
