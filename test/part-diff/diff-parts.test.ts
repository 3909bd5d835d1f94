// diffParts: parts matched by group_id; what changed read from the fingerprints; unknown fingerprints compare by name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PartFingerprint } from '../../src/pipeline/types.ts';
import { diffParts } from '../../src/part-diff/diff-parts.ts';
import type { VersionPartRecord } from '../../src/part-diff/diff-parts.ts';

const print = (seed: string, changes: Partial<PartFingerprint> = {}): PartFingerprint => ({
  geometry: `g-${seed}`,
  transform: `t-${seed}`,
  properties: `p-${seed}`,
  material: `m-${seed}`,
  ...changes,
});

const part = (group_id: string, name: string, fingerprint: PartFingerprint | null): VersionPartRecord => ({
  group_id,
  name,
  fingerprint,
});

void describe('diffParts', () => {
  const from = [
    part('a', 'Wall', print('a')),
    part('b', 'Slab', print('b')),
    part('c', 'Door', print('c')),
    part('d', 'Roof', print('d')),
  ];

  void it('lists added, removed, changed (with what) and unchanged parts, with counts', () => {
    const to = [
      part('e', 'Window', print('e')),
      part('d', 'Roof', print('d')),
      part('b', 'Floor slab', print('b', { transform: 'moved', material: 'red' })),
      part('a', 'Wall', print('a', { material: 'red', geometry: 'taller', properties: 'p2' })),
    ];
    assert.deepEqual(diffParts(from, to), {
      added: [{ group_id: 'e', name: 'Window' }],
      removed: [{ group_id: 'c', name: 'Door' }],
      changed: [
        { group_id: 'b', name: 'Floor slab', what: ['transform', 'name', 'material'] },
        { group_id: 'a', name: 'Wall', what: ['geometry', 'properties', 'material'] },
      ],
      unchanged: [{ group_id: 'd', name: 'Roof' }],
      counts: { added: 1, removed: 1, changed: 2, unchanged: 1 },
    });
  });

  void it('compares only the name when either side has no fingerprint', () => {
    const old = from.map((record) => ({ ...record, fingerprint: null }));
    const to = [
      part('a', 'Wall', print('other')),
      part('b', 'Slab 2', print('b')),
      part('c', 'Door', null),
      part('d', 'Roof', null),
    ];
    const diff = diffParts(old, to);
    assert.deepEqual(diff.changed, [{ group_id: 'b', name: 'Slab 2', what: ['name'] }]);
    assert.deepEqual(diff.counts, { added: 0, removed: 0, changed: 1, unchanged: 3 });
    assert.deepEqual(diffParts(from, to).counts, { added: 0, removed: 0, changed: 2, unchanged: 2 });
  });

  void it('diffs a version with itself as all unchanged, and with nothing as all removed', () => {
    assert.deepEqual(diffParts(from, from).counts, { added: 0, removed: 0, changed: 0, unchanged: 4 });
    const gone = diffParts(from, []);
    assert.deepEqual(
      gone.removed.map((record) => record.group_id),
      ['a', 'b', 'c', 'd'],
    );
    assert.deepEqual(diffParts([], from).counts, { added: 4, removed: 0, changed: 0, unchanged: 0 });
  });
});
