import type { TileJson } from './tileset-json.ts';

/**
 * The cut through a tile tree (tiles refined REPLACE) that a drawing of at most `budget` triangles shows: from the
 * root, the tile of largest geometric error is replaced by its children while the cut's triangles stay within the
 * budget; a tile whose children would go over stays. The root alone when even it is over. `trianglesOf` is asked
 * only about the root and the children of tiles tried, so a caller that loads tiles to count them loads no more;
 * `dropped` hears of children weighed and left out, which it need not keep.
 */
export async function chooseTileCut(
  root: TileJson,
  trianglesOf: (tile: TileJson) => Promise<number>,
  budget: number,
  dropped: (tiles: TileJson[]) => void = () => {},
): Promise<TileJson[]> {
  const cut = new Set<TileJson>([root]);
  let total = await trianglesOf(root);
  const own = new Map<TileJson, number>([[root, total]]);
  // Coarsest first: the detail added goes where the cut is furthest from the model.
  const open = [root];
  while (open.length > 0) {
    open.sort((a, b) => b.geometricError - a.geometricError);
    const tile = open.shift()!;
    const children = tile.children ?? [];
    if (children.length === 0) continue;
    const counts = await Promise.all(children.map(trianglesOf));
    const next = total - own.get(tile)! + counts.reduce((sum, count) => sum + count, 0);
    if (next > budget) {
      dropped(children);
      continue;
    }
    cut.delete(tile);
    children.forEach((child, index) => {
      cut.add(child);
      own.set(child, counts[index]);
      open.push(child);
    });
    total = next;
  }
  return [...cut];
}
