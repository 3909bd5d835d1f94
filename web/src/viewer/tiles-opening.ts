/**
 * Opens a model that has a tileset as streamed 3D Tiles rather than by its levels, for the viewer, the share page
 * and its embed alike; a level chosen afterwards (the LOD switcher) replaces the tiles as before. The address can
 * ask for a level instead (`level=0`, `1` or `2` in the hash's query, e.g. `#/models/<id>?level=0`), which opens
 * that level whole.
 *
 * The view's element tells scripts and tests what is shown: `data-state` goes `loading` → `ready` once a frame has
 * drawn some tiles, `data-lod` is `tiles`, and `data-tile-bytes` the bytes of tileset and tiles fetched until then.
 */
import type { Lod } from '../api/types.ts';
import type { LevelLoader } from './level-loader.ts';
import type { DrawnCounts, ModelViewport } from './model-viewport.ts';
import { servedLevels } from './served-levels.ts';

/** The level the page's address asks to open at, or null when it asks for none. */
export function askedLevel(hash = location.hash): 0 | 1 | 2 | null {
  const query = hash.split('?')[1];
  const level = query === undefined ? null : new URLSearchParams(query).get('level');
  return level === '0' || level === '1' || level === '2' ? (Number(level) as 0 | 1 | 2) : null;
}

/**
 * The served level a page's LOD switcher starts checked at: the level the address asks for (or, when that level is
 * a copy, the served level it copies), else the finest served level, which the levels are opened to.
 */
export function openingLevel(lods: readonly Lod[], hash = location.hash): number {
  const served = servedLevels(lods);
  const asked = askedLevel(hash);
  if (asked !== null && lods.some((lod) => lod.level === asked)) {
    return served.filter((lod) => lod.level <= asked).at(-1)?.level ?? 0;
  }
  return served[0]?.level ?? 0;
}

/** True when {@link openingWithTiles} opens the tileset: there is one and the address asks for no level listed. */
export function opensTiles(lods: readonly Lod[], tilesetUrl: string | null | undefined): boolean {
  const asked = askedLevel();
  return Boolean(tilesetUrl) && !lods.some((lod) => lod.level === asked);
}

/** What the opening of tiles reports to its page. */
export interface TilesOpeningOptions {
  view: ModelViewport;
  /** The view's element, which carries `data-state`, `data-lod` and `data-tile-bytes`. */
  element: HTMLElement;
  /** Hears what the first frame of tiles drew. */
  onShown: (counts: DrawnCounts) => void;
}

/**
 * A loader that opens `tilesetUrl` when there is one and the address asks for no level, else the level asked
 * for, else as `levels` opens; `choose` is always `levels`' own.
 */
export function openingWithTiles(
  levels: LevelLoader,
  lods: readonly Lod[],
  tilesetUrl: string | null | undefined,
  options: TilesOpeningOptions,
): LevelLoader {
  const asked = askedLevel();
  const askedLod = lods.find((lod) => lod.level === asked);
  return {
    async open() {
      if (askedLod) return levels.choose(askedLod);
      if (!tilesetUrl) return levels.open();
      await openTiles(tilesetUrl, options);
    },
    choose: (lod) => levels.choose(lod),
  };
}

/**
 * Streams `tilesetUrl` into the view (replacing a level shown), reporting as an opening does: what the page's
 * Streamed entry of the LOD switcher does, from a level back to tiles.
 */
export async function openTiles(tilesetUrl: string, options: TilesOpeningOptions): Promise<void> {
  const { element } = options;
  element.dataset.state = 'loading';
  const counts = await options.view.loadTiles(tilesetUrl);
  element.dataset.tileBytes = String(counts.bytes);
  element.dataset.lod = 'tiles';
  element.dataset.state = 'ready';
  options.onShown(counts);
}
