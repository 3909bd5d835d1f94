import type { TileBox } from './tile-geometry.ts';

/** A tile of `tileset.json` (3D Tiles 1.1), as written. */
export interface TileJson {
  boundingVolume: { box: number[] };
  geometricError: number;
  refine?: 'REPLACE';
  content: { uri: string };
  children?: TileJson[];
}

/** The whole `tileset.json`. */
export interface TilesetJson {
  asset: { version: '1.1'; generator: string };
  geometricError: number;
  root: TileJson;
}

/**
 * A tile's `box` bounding volume (centre, then three half-axes) in the tileset's frame. Tile content is glTF, +Y
 * up, which 3D Tiles turns +Z up (a glTF point x, y, z lies at x, −z, y in the tileset), so the box is turned the
 * same way: the tileset is then the model as it stands in glTF, once a viewer turns it back +Y up.
 */
export function boxVolume(box: TileBox): number[] {
  const centre = [0, 1, 2].map((axis) => (box.min[axis] + box.max[axis]) / 2);
  const half = [0, 1, 2].map((axis) => (box.max[axis] - box.min[axis]) / 2);
  return [centre[0], -centre[2], centre[1], half[0], 0, 0, 0, half[2], 0, 0, 0, half[1]];
}

/** The glTF-frame box a `box` bounding volume written by {@link boxVolume} stands for. */
export function volumeBox(volume: number[]): TileBox {
  const [cx, cy, cz, hx, , , , hy, , , , hz] = volume;
  // Tileset (x, y, z) is glTF (x, z, −y): the tileset's y half-axis is glTF's z.
  return {
    min: [cx - hx, cz - hz, -cy - hy],
    max: [cx + hx, cz + hz, -cy + hy],
  };
}

/** A whole tileset around its root tile: `geometricError` is the error of drawing nothing (the model's diagonal). */
export function tilesetJson(root: TileJson, diagonal: number): TilesetJson {
  return {
    asset: { version: '1.1', generator: 'Vitrine' },
    geometricError: Math.max(diagonal, root.geometricError),
    root: { ...root, refine: 'REPLACE' },
  };
}
