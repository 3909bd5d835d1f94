// Versions of a real IFC house (FZK-Haus) made by editing its STEP text, converted through the whole pipeline and
// diffed: a wall moved by its placement is exactly one `changed` part, by transform only; three elements deleted
// are exactly three `removed` parts; every other part keeps its GlobalId and its fingerprint.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ConversionResult, PreviousPart } from '../../src/pipeline/types.ts';
import { diffParts } from '../../src/part-diff/diff-parts.ts';
import { MODELS, quietLogger, tempDir } from '../pipeline/documents.ts';
import { deleteEntities, entityNamed, moveByPlacement } from '../helpers/step-text.ts';

const HOUSE = path.join(MODELS, 'ifc', 'AC14-FZK-Haus.ifc');
const TIMEOUT_MS = 240_000;

let scratch: Awaited<ReturnType<typeof tempDir>>;
let text: string;
let first: ConversionResult;

/** Converts an edited copy of the house as a version that continues `previous` (version 2 of model `m`). */
async function convertVersion(
  edited: string,
  name: string,
  previous?: PreviousPart[],
): Promise<ConversionResult> {
  const file = path.join(scratch.dir, name);
  // STEP text is ASCII (non-ASCII characters are escaped), so latin1 gives back the very bytes read.
  await writeFile(file, edited, 'latin1');
  return convertModel({
    modelId: 'm',
    source: { file, dir: scratch.dir, format: 'ifc' },
    logger: quietLogger,
    ...(previous && { previousParts: previous, newGroupIdPrefix: 'm:v2-' }),
  });
}

void describe('versions of an IFC house', { timeout: TIMEOUT_MS }, () => {
  before(async () => {
    scratch = await tempDir();
    text = await readFile(HOUSE, 'latin1');
    first = await convertVersion(text, 'AC14-FZK-Haus.ifc');
    assert.ok(first.parts.length > 100, `${first.parts.length} parts`);
  });
  after(() => scratch.remove());

  void it('shows a wall moved by its IfcLocalPlacement as that wall changed, by transform alone', async () => {
    const wall = entityNamed(text, 'Wand-Int-ERDG-1');
    const moved = moveByPlacement(text, wall, [0.5, -0.25, 0]);
    assert.notEqual(moved, text);
    const second = await convertVersion(moved, 'house-moved.ifc', first.parts);
    const diff = diffParts(first.parts, second.parts);
    const guid = first.parts.find((part) => part.name === 'Wand-Int-ERDG-1')!.group_id;
    assert.deepEqual(diff.changed, [{ group_id: guid, name: 'Wand-Int-ERDG-1', what: ['transform'] }]);
    assert.deepEqual(diff.counts, {
      added: 0,
      removed: 0,
      changed: 1,
      unchanged: first.parts.length - 1,
    });
    // Its place moved by what the placement did: 0.5 m along IFC's x, 0.25 m back along its y (glTF's z).
    const before = first.parts.find((part) => part.group_id === guid)!.bounds;
    const after = second.parts.find((part) => part.group_id === guid)!.bounds;
    assert.ok(Math.abs(after.min[0] - before.min[0] - 0.5) < 1e-4, `x ${before.min[0]} → ${after.min[0]}`);
    assert.ok(Math.abs(after.min[2] - before.min[2] - 0.25) < 1e-4, `z ${before.min[2]} → ${after.min[2]}`);
  });

  void it('shows three deleted elements as exactly three removed parts', async () => {
    const names = ['Wand-Int-ERDG-5', 'Wand-Int-ERDG-4', 'Unterzug-1'];
    const { text: edited, deleted } = deleteEntities(
      text,
      names.map((name) => entityNamed(text, name)),
    );
    // Their relations went with them (materials, space boundaries, wall connections), nothing else.
    assert.ok(deleted.size > 3, `${deleted.size} entities deleted`);
    const second = await convertVersion(edited, 'house-less.ifc', first.parts);
    const diff = diffParts(first.parts, second.parts);
    assert.deepEqual(diff.removed.map((part) => part.name).sort(), [...names].sort());
    assert.deepEqual(diff.counts, {
      added: 0,
      removed: 3,
      changed: 0,
      unchanged: first.parts.length - 3,
    });
    // The GlobalIds the file gives are the parts' ids, in both versions.
    assert.ok(second.parts.every((part) => !part.group_id.startsWith('m:')));
  });

  void it('converts the same file again to the same ids and fingerprints', async () => {
    const again = await convertVersion(text, 'renamed-upload.ifc', first.parts);
    assert.deepEqual(
      again.parts.map((part) => [part.group_id, part.fingerprint]),
      first.parts.map((part) => [part.group_id, part.fingerprint]),
    );
  });
});
