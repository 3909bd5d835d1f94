// Versions of an OBJ model (written here as text), converted through the whole pipeline: parts keep their group ids
// by path and name across a version that adds a group; renamed groups, and a new group of a removed one's shape,
// are new parts.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ConversionResult, PreviousPart } from '../../src/pipeline/types.ts';
import { diffParts } from '../../src/part-diff/diff-parts.ts';
import { boxesObj, type Box } from '../helpers/box-obj.ts';
import { quietLogger, tempDir } from '../pipeline/documents.ts';

const BOXES: Box[] = [
  { name: 'Table', at: [0, 0, 0], size: [2, 0.1, 1] },
  { name: 'Chair', at: [3, 0, 0], size: [0.5, 0.9, 0.5] },
  { name: 'Shelf', at: [-2, 0, 2], size: [1, 2, 0.3] },
  { name: 'Lamp', at: [1, 2, 1], size: [0.2, 0.6, 0.2] },
];

let scratch: Awaited<ReturnType<typeof tempDir>>;
let first: ConversionResult;

async function convertVersion(
  boxes: readonly Box[],
  name: string,
  previous?: PreviousPart[],
): Promise<ConversionResult> {
  const file = path.join(scratch.dir, name);
  await writeFile(file, boxesObj(boxes));
  return convertModel({
    modelId: 'm',
    source: { file, dir: scratch.dir, format: 'obj' },
    logger: quietLogger,
    ...(previous && { previousParts: previous, newGroupIdPrefix: 'm:v2-' }),
  });
}

void describe('versions of an OBJ model', () => {
  before(async () => {
    scratch = await tempDir();
    first = await convertVersion(BOXES, 'room.obj');
    assert.deepEqual(
      first.parts.map((part) => [part.group_id, part.name]),
      BOXES.map((box, index) => [`m:${index}`, box.name]),
    );
  });
  after(() => scratch.remove());

  void it('shows one group added as one added part; the others keep their ids by path and name', async () => {
    // Added in the middle, so every group after it has another place in the file than before.
    const boxes = [
      ...BOXES.slice(0, 2),
      { name: 'Rug', at: [0, 0, 3], size: [2, 0.01, 1.5] },
      ...BOXES.slice(2),
    ];
    // A new version's file need not keep the name of the one before (the top node is named after the file).
    const second = await convertVersion(boxes as Box[], 'room-v2.obj', first.parts);
    assert.deepEqual(
      second.parts.map((part) => [part.group_id, part.name]),
      [
        ['m:0', 'Table'],
        ['m:1', 'Chair'],
        ['m:v2-2', 'Rug'],
        ['m:2', 'Shelf'],
        ['m:3', 'Lamp'],
      ],
    );
    const diff = diffParts(first.parts, second.parts);
    assert.deepEqual(diff.added, [{ group_id: 'm:v2-2', name: 'Rug' }]);
    assert.deepEqual(diff.counts, { added: 1, removed: 0, changed: 0, unchanged: 4 });
  });

  void it('shows parts renamed in place as added and removed: a name that differs is another part', async () => {
    const renamed = BOXES.map((box, index) => ({ ...box, name: `Object ${index + 1}` }));
    const second = await convertVersion(renamed, 'room.obj', first.parts);
    const diff = diffParts(first.parts, second.parts);
    assert.deepEqual(
      diff.added.map((part) => part.name),
      renamed.map((box) => box.name),
    );
    assert.deepEqual(diff.counts, { added: 4, removed: 4, changed: 0, unchanged: 0 });
  });

  void it('never hands the id of a removed part to a new part of its shape (Alpha, Bravo, Charlie → Alpha, Charlie, Delta)', async () => {
    const cube = (name: string, x: number): Box => ({ name, at: [x, 0, 0], size: [1, 1, 1] });
    const v1 = await convertVersion([cube('Alpha', 0), cube('Bravo', 2), cube('Charlie', 4)], 'abc.obj');
    const v2 = await convertVersion(
      [cube('Alpha', 0), cube('Charlie', 4), cube('Delta', 6)],
      'acd.obj',
      v1.parts,
    );
    const diff = diffParts(v1.parts, v2.parts);
    assert.deepEqual(diff.added, [{ group_id: 'm:v2-2', name: 'Delta' }]);
    assert.deepEqual(diff.removed, [{ group_id: 'm:1', name: 'Bravo' }]);
    assert.deepEqual(diff.counts, { added: 1, removed: 1, changed: 0, unchanged: 2 });
  });

  void it('tells a moved group from a reshaped one, both keeping their ids by name', async () => {
    const boxes = BOXES.map((box) =>
      box.name === 'Chair'
        ? { ...box, at: [4.25, 0, -1] as Box['at'] }
        : box.name === 'Shelf'
          ? { ...box, size: [1, 2.2, 0.3] as Box['size'] }
          : box,
    );
    const second = await convertVersion(boxes, 'room.obj', first.parts);
    const diff = diffParts(first.parts, second.parts);
    assert.deepEqual(
      diff.changed.map((part) => [part.group_id, part.name, part.what]),
      [
        ['m:1', 'Chair', ['transform']],
        // Taller from its low corner up: its shape changed, its corner did not move.
        ['m:2', 'Shelf', ['geometry']],
      ],
    );
    assert.deepEqual(diff.counts, { added: 0, removed: 0, changed: 2, unchanged: 2 });
  });
});
