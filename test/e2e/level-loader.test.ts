// Which levels the viewer fetches and in what order: copies of a coarser level (reduced: false) are neither
// fetched nor listed, the coarsest served level is drawn first and LOD 0 after it, and a level chosen meanwhile
// wins over the refinement.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Lod } from '../../web/src/api/types.ts';
import { createLevelLoader } from '../../web/src/viewer/level-loader.ts';
import { foldedLevels, servedLevels } from '../../web/src/viewer/served-levels.ts';
import { openingLevel } from '../../web/src/viewer/tiles-opening.ts';

function lod(level: number, reduced: boolean | null, size = 1000 >> level): Lod {
  return { level, url: `/files/lod${level}.glb`, triangle_count: size, size, error: 0, reduced };
}

/** A stand-in for the view's element: only its dataset is used. */
function fakeElement(): HTMLElement {
  return { dataset: {} } as unknown as HTMLElement;
}

void test('every level of its own is served, finest first', () => {
  const levels = [lod(2, true), lod(0, false), lod(1, true)];
  assert.deepEqual(
    servedLevels(levels).map((level) => level.level),
    [0, 1, 2],
  );
  assert.deepEqual([...foldedLevels(levels).values()].flat(), []);
});

void test('a level that could not be reduced is folded into the level it copies', () => {
  const copyOfOne = { ...lod(1, true), level: 2, reduced: false };
  const levels = [lod(0, false), lod(1, true), copyOfOne];
  assert.deepEqual(
    servedLevels(levels).map((level) => level.level),
    [0, 1],
  );
  assert.deepEqual(foldedLevels(levels).get(1), [copyOfOne]);
  const nothingReduced = [lod(0, false), { ...lod(0, false), level: 1 }, { ...lod(0, false), level: 2 }];
  assert.deepEqual(
    servedLevels(nothingReduced).map((level) => level.level),
    [0],
  );
  assert.deepEqual(
    foldedLevels(nothingReduced)
      .get(0)
      ?.map((level) => level.level),
    [1, 2],
  );
});

void test('levels recorded before `reduced` was are told apart by size and count', () => {
  const copy = { ...lod(1, null), level: 2 };
  assert.deepEqual(
    servedLevels([lod(0, null), lod(1, null), copy]).map((level) => level.level),
    [0, 1],
  );
});

void test('opening draws the coarsest served level, then LOD 0', async () => {
  const element = fakeElement();
  const drawn: number[] = [];
  const states: string[] = [];
  const loader = createLevelLoader([lod(0, false), lod(1, true), lod(2, true)], {
    element,
    draw: async (level) => {
      states.push(element.dataset.state ?? '');
      drawn.push(level.level);
      return { triangles: level.triangle_count, points: 0 };
    },
    onShown: (level, _counts, final) => states.push(`${level.level}:${final}:${element.dataset.state}`),
  });
  await loader.open();
  assert.deepEqual(drawn, [2, 0]);
  assert.deepEqual(states, ['loading', '2:false:refining', 'refining', '0:true:ready']);
  assert.equal(element.dataset.lod, '0');
});

void test('a model with one served level opens it alone', async () => {
  const drawn: number[] = [];
  const loader = createLevelLoader([lod(0, false), { ...lod(0, false), level: 1 }], {
    element: fakeElement(),
    draw: async (level) => {
      drawn.push(level.level);
      return { triangles: 1, points: 0 };
    },
  });
  await loader.open();
  assert.deepEqual(drawn, [0]);
});

void test('a level chosen while LOD 0 is on its way wins', async () => {
  const element = fakeElement();
  const pending = new Map<number, () => void>();
  const shown: number[] = [];
  const loader = createLevelLoader([lod(0, false), lod(1, true), lod(2, true)], {
    element,
    draw: (level) =>
      new Promise((resolve) => pending.set(level.level, () => resolve({ triangles: 1, points: 0 }))),
    onShown: (level) => shown.push(level.level),
  });
  const opening = loader.open();
  await new Promise((resolve) => setImmediate(resolve));
  pending.get(2)!();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(element.dataset.state, 'refining');
  const choosing = loader.choose(lod(1, true));
  assert.equal(element.dataset.state, 'loading');
  pending.get(1)!();
  await choosing;
  pending.get(0)!();
  await opening;
  assert.deepEqual(shown, [2, 1], 'LOD 0 arriving late is not reported over the chosen LOD 1');
  assert.equal(element.dataset.lod, '1');
  assert.equal(element.dataset.state, 'ready');
});

void test('a level that fails is reported and leaves the state at error', async () => {
  const element = fakeElement();
  const failed: number[] = [];
  const loader = createLevelLoader([lod(0, false), lod(2, true)], {
    element,
    draw: async (level) => {
      if (level.level === 0) throw new Error('gone');
      return { triangles: 1, points: 0 };
    },
    onError: (level) => failed.push(level.level),
  });
  await loader.open();
  assert.deepEqual(failed, [0]);
  assert.equal(element.dataset.state, 'error');
  assert.equal(element.dataset.lod, '2', 'the coarse level stays drawn');
});

void test('the switcher starts at the level the address asks for, or at the served level that one copies', () => {
  const levels = [lod(0, false), lod(1, true), { ...lod(1, true), level: 2, reduced: false }];
  assert.equal(openingLevel(levels, '#/models/m'), 0, 'no level asked: the finest, which is opened to');
  assert.equal(openingLevel(levels, '#/models/m?level=1'), 1);
  assert.equal(openingLevel(levels, '#/models/m?level=2'), 1, 'LOD 2 is a copy of LOD 1');
  assert.equal(openingLevel(levels, '#/models/m?level=7'), 0, 'a level not listed is not asked for');
  assert.equal(openingLevel([lod(0, false), lod(1, true), lod(2, true)], '#/models/m?tab=parts&level=2'), 2);
});
