// The parts tree's row model: the flat index of folders and parts, the rows shown as folders open and close and
// as a search narrows them, their aria-posinset/aria-setsize, and the keys that move between rows.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { searchFold } from '../../src/db/search-fold.ts';
import {
  buildTreeIndex,
  foldName,
  searchParts,
  type TreeIndex,
} from '../../web/src/parts-tree/tree-index.ts';
import {
  allExpanded,
  expandShown,
  expandTo,
  layOutRows,
  shownNodes,
  treeKeyAction,
  type TreeRows,
} from '../../web/src/parts-tree/tree-rows.ts';

const part = (group_id: string, name: string, path: string) => ({ group_id, name, path });

// House/Ground/{Wall A, Wall B}, House/Roof/Tile, House/Door, Lamp (at the top).
const PARTS = [
  part('g1', 'Wall A', 'House/Ground'),
  part('g2', 'Lamp', ''),
  part('g3', 'Tile', 'House/Roof'),
  part('g4', 'Wall B', 'House/Ground'),
  part('g5', 'Door', 'House'),
];

/** Each row as "label@level pos/size", a folder's label followed by "/". */
function describeRows(index: TreeIndex, rows: TreeRows): string[] {
  return Array.from(rows.nodes, (node, row) => {
    const at = index.part[node]!;
    const label = at === -1 ? `${index.folderName[node]}/` : index.parts[at]!.name;
    return `${label}@${index.level[node]} ${rows.posinset[row]}/${rows.setsize[row]}`;
  });
}

void describe('the parts tree row model', () => {
  void test('lays folders before parts at each level, in pre-order, with levels and positions', () => {
    const index = buildTreeIndex(PARTS);
    assert.equal(index.size, 8, 'three folders and five parts');
    const rows = layOutRows(index, allExpanded(index), null);
    assert.deepEqual(describeRows(index, rows), [
      'House/@1 1/2',
      'Ground/@2 1/3',
      'Wall A@3 1/2',
      'Wall B@3 2/2',
      'Roof/@2 2/3',
      'Tile@3 1/1',
      'Door@2 3/3',
      'Lamp@1 2/2',
    ]);
    for (let node = 0; node < index.size; node++) {
      assert.ok(index.end[node]! > node, 'a subtree ends after its node');
      const parent = index.parent[node]!;
      if (parent >= 0) assert.ok(parent < node && index.end[parent]! >= index.end[node]!);
    }
    assert.equal(index.nodeOf.get('g4'), 3);
  });

  void test('collapsing a folder leaves its subtree out and renumbers nothing else', () => {
    const index = buildTreeIndex(PARTS);
    const expanded = allExpanded(index);
    expanded[1] = 0; // Ground
    const rows = layOutRows(index, expanded, null);
    assert.deepEqual(describeRows(index, rows), [
      'House/@1 1/2',
      'Ground/@2 1/3',
      'Roof/@2 2/3',
      'Tile@3 1/1',
      'Door@2 3/3',
      'Lamp@1 2/2',
    ]);
    assert.equal(rows.rowOf[index.nodeOf.get('g1')!], -1, 'a part in a closed folder has no row');
    expanded[0] = 0; // House
    assert.deepEqual(describeRows(index, layOutRows(index, expanded, null)), ['House/@1 1/2', 'Lamp@1 2/2']);
  });

  void test('expanding to a part opens every folder above it, and only those', () => {
    const index = buildTreeIndex(PARTS);
    const expanded = new Uint8Array(index.size);
    assert.equal(expandTo(index, expanded, index.nodeOf.get('g4')!), true);
    assert.deepEqual(describeRows(index, layOutRows(index, expanded, null)), [
      'House/@1 1/2',
      'Ground/@2 1/3',
      'Wall A@3 1/2',
      'Wall B@3 2/2',
      'Roof/@2 2/3',
      'Door@2 3/3',
      'Lamp@1 2/2',
    ]);
    assert.equal(expandTo(index, expanded, index.nodeOf.get('g4')!), false, 'already open');
  });

  void test('a search keeps the matching parts and the folders leading to them, counted among themselves', () => {
    const index = buildTreeIndex(PARTS);
    const found = searchParts(index, '  WALL ');
    assert.deepEqual(Array.from(found!), [1, 0, 0, 1, 0]);
    const shown = shownNodes(index, found)!;
    const expanded = new Uint8Array(index.size);
    expandShown(index, expanded, shown);
    const rows = layOutRows(index, expanded, shown);
    assert.deepEqual(describeRows(index, rows), [
      'House/@1 1/1',
      'Ground/@2 1/1',
      'Wall A@3 1/2',
      'Wall B@3 2/2',
    ]);
    assert.equal(expanded[4], 0, 'a folder with no match stays closed');
  });

  void test('a search matches folder paths and ignores case and accents; an empty one keeps everything', () => {
    const index = buildTreeIndex([part('a', 'Écrou', 'Châssis/Avant'), part('b', 'Vis', 'Moteur')]);
    assert.deepEqual(Array.from(searchParts(index, 'chassis/avant/ecr')!), [1, 0]);
    assert.deepEqual(Array.from(searchParts(index, 'MOTEUR')!), [0, 1]);
    assert.deepEqual(Array.from(searchParts(index, 'nothing')!), [0, 0]);
    assert.equal(searchParts(index, '   '), null);
    assert.equal(shownNodes(index, null), null);
    const none = shownNodes(index, new Uint8Array(2))!;
    assert.equal(layOutRows(index, allExpanded(index), none).nodes.length, 0);
  });

  void test("ASCII names are folded as the catalog's search folds them, others by the full folding", () => {
    for (const text of ['Wall-Ext/OG 4', 'ABC xyz 09 ~!@', 'Straße', 'ÉCOLE/Ørsted', 'ﬁle', 'ΣΊΣΥΦΟΣ'])
      assert.equal(foldName(text), searchFold(text), text);
  });

  void test('an appendix is a folder of its own at the end, never merged with a path of the same name', () => {
    const index = buildTreeIndex([part('a', 'Bolt', 'Removed (1)')], {
      label: 'Removed (1)',
      parts: [part('gone', 'Nut', '')],
    });
    const rows = layOutRows(index, allExpanded(index), null);
    assert.deepEqual(describeRows(index, rows), [
      'Removed (1)/@1 1/2',
      'Bolt@2 1/1',
      'Removed (1)/@1 2/2',
      'Nut@2 1/1',
    ]);
    assert.deepEqual(Array.from(searchParts(index, 'removed (1)/nut')!), [0, 1]);
  });

  void test('the keys move between rows, open and close folders, and climb to the parent', () => {
    const index = buildTreeIndex(PARTS);
    const expanded = allExpanded(index);
    const rows = layOutRows(index, expanded, null);
    const key = (row: number, name: string) => treeKeyAction(index, rows, expanded, row, name, 3);
    assert.deepEqual(key(0, 'ArrowDown'), { kind: 'focus', row: 1 });
    assert.deepEqual(key(0, 'ArrowUp'), { kind: 'focus', row: 0 }, 'stays on the first row');
    assert.deepEqual(key(7, 'ArrowDown'), { kind: 'focus', row: 7 }, 'stays on the last row');
    assert.deepEqual(key(2, 'End'), { kind: 'focus', row: 7 });
    assert.deepEqual(key(5, 'Home'), { kind: 'focus', row: 0 });
    assert.deepEqual(key(1, 'PageDown'), { kind: 'focus', row: 4 });
    assert.deepEqual(key(6, 'PageDown'), { kind: 'focus', row: 7 });
    assert.deepEqual(key(1, 'ArrowRight'), { kind: 'focus', row: 2 }, 'into an open folder');
    assert.deepEqual(key(1, 'ArrowLeft'), { kind: 'collapse', node: 1 });
    assert.deepEqual(key(3, 'ArrowLeft'), { kind: 'focus', row: 1 }, 'from a part to its folder');
    assert.equal(key(7, 'ArrowLeft'), null, 'a top-level part has no parent');
    assert.equal(key(2, 'ArrowRight'), null, 'a part opens nothing');
    assert.equal(key(2, 'x'), null);
    expanded[1] = 0;
    const closed = layOutRows(index, expanded, null);
    assert.deepEqual(treeKeyAction(index, closed, expanded, 1, 'ArrowRight', 3), { kind: 'expand', node: 1 });
  });

  void test('100,000 parts in 1,000 folders: built, searched and laid out whole', () => {
    const many = Array.from({ length: 100_000 }, (_, at) =>
      part(`g${at}`, `Part ${at}`, `Level ${at % 10}/Bay ${at % 1000}`),
    );
    const index = buildTreeIndex(many);
    assert.equal(index.size, 100_000 + 10 + 1000);
    const rows = layOutRows(index, allExpanded(index), null);
    assert.equal(rows.nodes.length, index.size);
    const node = index.nodeOf.get('g98765')!;
    const row = rows.rowOf[node]!;
    assert.equal(rows.nodes[row], node);
    assert.equal(rows.setsize[row], 100, 'a bay holds a hundred parts');
    const found = searchParts(index, 'part 98765');
    const shown = shownNodes(index, found)!;
    const narrowed = layOutRows(index, allExpanded(index), shown);
    assert.deepEqual(describeRows(index, narrowed), ['Level 5/@1 1/1', 'Bay 765/@2 1/1', 'Part 98765@3 1/1']);
  });
});
