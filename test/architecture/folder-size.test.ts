// No folder of src/ grows into a long corridor: past 25 files flat it splits into sub-folders by job.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crowdedFolders, filesFlat, MAX_FILES_FLAT } from './folder-size.ts';
import { SRC } from './import-graph.ts';

void describe('the folders of src/', () => {
  const counts = filesFlat(SRC);

  void it('are all counted (a sanity floor, so a broken walk cannot pass)', () => {
    assert.ok(counts.size > 20, `${counts.size} folders`);
    assert.ok((counts.get('db/migrations/2026-11') ?? 0) > 10, 'the migrations are counted');
    assert.ok((counts.get('catalog/versions') ?? 0) > 0, 'sub-folders are counted on their own');
  });

  void it(`hold at most ${MAX_FILES_FLAT} files flat each`, () => {
    assert.deepEqual(crowdedFolders(counts), [], 'split the folder into sub-folders by job');
  });

  void it('tells a crowded folder from a full one', () => {
    const made = new Map([
      ['.', 12],
      ['catalog', MAX_FILES_FLAT],
      ['http', MAX_FILES_FLAT + 1],
    ]);
    assert.deepEqual(crowdedFolders(made), [`http: ${MAX_FILES_FLAT + 1}`]);
  });
});
