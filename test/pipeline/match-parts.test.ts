// Part identity across versions, through extract-parts: which previous part a new part continues (file id, then
// path and name, then geometry with position under the same name), and the ids of the parts that continue none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import type { ExtractPartsOptions } from '../../src/pipeline/extract-parts.ts';
import { matchParts } from '../../src/pipeline/match-parts.ts';
import type { PartInfo, PreviousPart } from '../../src/pipeline/types.ts';
import { addSphere, emptyDocument, recordingContext } from './documents.ts';

/** One part to build: node name (empty: none), sphere size (its shape), where, and an id the file gives. */
interface Spec {
  name: string;
  segments: number;
  at?: [number, number, number];
  fileId?: string;
}

/** A document of `Root ▸ part…` (each its own sphere mesh, unnamed), and its parts as extracted. */
function convert(specs: Spec[], options: Partial<ExtractPartsOptions> = {}, root = 'Root'): PartInfo[] {
  const document: Document = emptyDocument();
  const top = document.createNode(root);
  document.getRoot().listScenes()[0].addChild(top);
  for (const { name, segments, at, fileId } of specs) {
    const node = document
      .createNode(name)
      .setMesh(addSphere(document, segments, 3, 1, ''))
      .setTranslation(at ?? [0, 0, 0]);
    if (fileId) node.setExtras({ group_id: fileId });
    top.addChild(node);
  }
  return extractParts(document, { modelId: 'm', ...options }, recordingContext());
}

const previous = (parts: PartInfo[]): PreviousPart[] =>
  parts.map(({ group_id, name, path, fingerprint }) => ({ group_id, name, path, fingerprint }));

const ids = (parts: PartInfo[]) => parts.map((part) => part.group_id);

void describe('part identity across versions', () => {
  void it('keeps ids by path and name, gives new parts the prefix with their place', () => {
    const v1 = convert([
      { name: 'A', segments: 4 },
      { name: 'B', segments: 5 },
    ]);
    assert.deepEqual(ids(v1), ['m:0', 'm:1']);
    const v2 = convert(
      [
        { name: 'New', segments: 6 },
        { name: 'B', segments: 9 },
        { name: 'A', segments: 4, at: [1, 0, 0] },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(ids(v2), ['m:v2-0', 'm:1', 'm:0']);
  });

  void it('matches without the top node, named after the file by most importers', () => {
    const v1 = convert([{ name: 'A', segments: 4 }], {}, 'house.obj');
    const v2 = convert([{ name: 'A', segments: 7 }], { previousParts: previous(v1) }, 'house-v2.obj');
    assert.deepEqual(ids(v2), ['m:0']);
  });

  void it('tells copies of one shape under one name apart by place, and never renames a part into another', () => {
    const v1 = convert([
      { name: 'Leg', segments: 4, at: [0, 0, 0] },
      { name: 'Leg', segments: 4, at: [1, 0, 0] },
      { name: 'Top', segments: 8 },
    ]);
    const v2 = convert(
      [
        { name: 'Board', segments: 8 },
        { name: 'Leg', segments: 4, at: [1, 0, 0] },
        { name: 'Leg', segments: 4, at: [0, 0, 0] },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    // Board has Top's shape and place but another name: a new part, and Top is gone.
    assert.deepEqual(ids(v2), ['m:v2-0', 'm:1', 'm:0']);
  });

  void it('gives a part that replaced a removed one of the same shape an id of its own', () => {
    // Alpha, Bravo, Charlie; then Bravo removed and Delta, the same shape, added elsewhere.
    const v1 = convert([
      { name: 'Alpha', segments: 4, at: [0, 0, 0] },
      { name: 'Bravo', segments: 4, at: [2, 0, 0] },
      { name: 'Charlie', segments: 4, at: [4, 0, 0] },
    ]);
    const v2 = convert(
      [
        { name: 'Alpha', segments: 4, at: [0, 0, 0] },
        { name: 'Charlie', segments: 4, at: [4, 0, 0] },
        { name: 'Delta', segments: 4, at: [6, 0, 0] },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(ids(v2), ['m:0', 'm:2', 'm:v2-2']);
    // Even at Bravo's very place, another name is another part.
    const inPlace = convert(
      [
        { name: 'Alpha', segments: 4, at: [0, 0, 0] },
        { name: 'Delta', segments: 4, at: [2, 0, 0] },
        { name: 'Charlie', segments: 4, at: [4, 0, 0] },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(ids(inPlace), ['m:0', 'm:v2-1', 'm:2']);
  });

  void it('finds an unnamed part by its shape where it was, not elsewhere', () => {
    const v1 = convert([
      { name: '', segments: 4, at: [0, 0, 0] },
      { name: '', segments: 5, at: [2, 0, 0] },
    ]);
    const v2 = convert(
      [
        { name: '', segments: 5, at: [2, 0, 0] },
        { name: '', segments: 4, at: [3, 0, 0] },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(ids(v2), ['m:1', 'm:v2-1']);
  });

  void it('does not match parts by a name made up from their place', () => {
    // Unnamed parts are listed as `Part <n>`: a part inserted before them shifts every such name.
    const v1 = convert([{ name: '', segments: 4 }]);
    assert.equal(v1[0].name, 'Part 1');
    const v2 = convert(
      [
        { name: '', segments: 9 },
        { name: '', segments: 4 },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(
      v2.map((part) => [part.name, part.group_id]),
      [
        ['Part 1', 'm:v2-0'],
        ['Part 2', 'm:0'],
      ],
    );
  });

  void it('keeps the ids a file gives, matched or not, and never hands their previous part to another', () => {
    const v1 = convert([
      { name: 'Wall', segments: 4, fileId: 'GUID-1' },
      { name: 'Slab', segments: 5, fileId: 'GUID-2' },
    ]);
    const v2 = convert(
      [
        // A new element with the same name and shape as GUID-2, which is gone.
        { name: 'Slab', segments: 5, fileId: 'GUID-3' },
        { name: 'Wall', segments: 6, fileId: 'GUID-1' },
        { name: 'Slab', segments: 5 },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    // The part without an id continues GUID-2 by path and name; GUID-1 was taken by identity.
    assert.deepEqual(ids(v2), ['GUID-3', 'GUID-1', 'GUID-2']);
  });

  void it('compares parts stored without fingerprints by id, path and name only', () => {
    const v1 = convert([
      { name: 'A', segments: 4 },
      { name: 'B', segments: 5 },
    ]);
    const old = previous(v1).map((part) => ({ ...part, fingerprint: null }));
    const v2 = convert(
      [
        { name: 'A', segments: 4 },
        { name: 'Renamed', segments: 5 },
      ],
      { previousParts: old, newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(ids(v2), ['m:0', 'm:v2-1']);
  });

  void it('renames a new id that a carried one already holds', () => {
    const v1 = convert([
      { name: 'A', segments: 4 },
      { name: 'B', segments: 5 },
    ]);
    // No prefix: the new part at place 1 would be `m:1`, the id B carries over.
    const v2 = convert(
      [
        { name: 'B', segments: 5 },
        { name: 'C', segments: 6 },
      ],
      { previousParts: previous(v1) },
    );
    assert.deepEqual(ids(v2), ['m:1', 'm:1~2']);
  });

  void it('leaves a previous id to the part the file now gives it to', () => {
    const v1 = convert([{ name: 'A', segments: 4 }]);
    const v2 = convert(
      [
        { name: 'A', segments: 4 },
        { name: 'Other', segments: 5, fileId: 'm:0' },
      ],
      { previousParts: previous(v1), newGroupIdPrefix: 'm:v2-' },
    );
    assert.deepEqual(ids(v2), ['m:v2-0', 'm:0']);
  });

  void it('says how each part was matched', () => {
    const v1 = convert([
      { name: 'A', segments: 4, fileId: 'X' },
      { name: 'B', segments: 5 },
      { name: 'C', segments: 6 },
      { name: 'F', segments: 7, at: [5, 0, 0] },
      { name: 'F', segments: 7, at: [6, 0, 0] },
    ]);
    const v2 = convert([
      { name: 'A', segments: 4, fileId: 'X' },
      { name: 'B', segments: 5 },
      { name: 'D', segments: 6 },
      { name: 'F', segments: 7, at: [6, 0, 0] },
      { name: 'F', segments: 7, at: [5, 0, 0] },
    ]);
    const found = matchParts(
      v2.map((part, index) => ({ ...part, named: true, fileId: index === 0 ? 'X' : undefined })),
      previous(v1),
    );
    assert.deepEqual(found, [
      { group_id: 'X', by: 'identity' },
      { group_id: 'm:1', by: 'path-name' },
      // D has C's shape and place, but not its name.
      undefined,
      // Two parts named F: told apart by their places.
      { group_id: 'm:4', by: 'geometry' },
      { group_id: 'm:3', by: 'geometry' },
    ]);
  });
});
