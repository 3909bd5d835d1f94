/**
 * Opens a model coarse first, for the viewer, the share page and its embed alike: the smallest level the model
 * serves is drawn first, then LOD 0 is fetched behind it and swapped in (the view keeps its camera, selection,
 * paint, hidden parts, x-ray and sections across levels). A 20 M-triangle model thus shows in the time of its
 * LOD 2 instead of after its whole LOD 0.
 *
 * The view's element reports progress for scripts and tests: `data-state` is `loading` (nothing of the wanted
 * level drawn yet), `refining` (a coarser level drawn, the finer one on its way), `ready` or `error`, and
 * `data-lod` the level drawn.
 */
import type { Lod } from '../api/types.ts';
import type { DrawnCounts } from './model-viewport.ts';
import { servedLevels } from './served-levels.ts';

/** What a page gives the loader: how to draw a level and what to do around it. */
export interface LevelLoaderOptions {
  /** The view's element, which carries `data-state` and `data-lod`. */
  element: HTMLElement;
  /** Fetches and draws one level, resolving with what it draws. */
  draw: (lod: Lod) => Promise<DrawnCounts>;
  /** Hears that a level starts loading. */
  onLoading?: (lod: Lod) => void;
  /** Hears each level drawn; `final` is false while a finer level is still on its way. */
  onShown?: (lod: Lod, counts: DrawnCounts, final: boolean) => void;
  /** Hears a level that could not be drawn (the view keeps what it showed). */
  onError?: (lod: Lod, error: unknown) => void;
}

/** Draws levels of one model; a newer request makes an older one's result go unreported. */
export interface LevelLoader {
  /** Draws the smallest served level, then refines to LOD 0; resolves once LOD 0 is drawn (or superseded). */
  open(): Promise<void>;
  /** Draws `lod` now, abandoning any refinement under way. */
  choose(lod: Lod): Promise<void>;
}

/** A loader over `lods` (every level the catalog lists; copies of a coarser level are never fetched twice). */
export function createLevelLoader(lods: readonly Lod[], options: LevelLoaderOptions): LevelLoader {
  const { element } = options;
  const served = servedLevels(lods);
  let serial = 0;

  /**
   * Draws `lod`; false when a newer request took over meanwhile or the level failed. `final` is false for the
   * coarse level of an opening; `refining` keeps that state while the finer level comes.
   */
  const drawLevel = async (lod: Lod, mine: number, final: boolean, refining = false): Promise<boolean> => {
    element.dataset.state = refining ? 'refining' : 'loading';
    options.onLoading?.(lod);
    let counts: DrawnCounts;
    try {
      counts = await options.draw(lod);
    } catch (error) {
      if (mine !== serial) return false;
      element.dataset.state = 'error';
      options.onError?.(lod, error);
      return false;
    }
    if (mine !== serial) return false;
    element.dataset.state = final ? 'ready' : 'refining';
    element.dataset.lod = String(lod.level);
    options.onShown?.(lod, counts, final);
    return true;
  };

  return {
    async open() {
      const mine = ++serial;
      const finest = served[0];
      const coarsest = served.at(-1);
      if (!finest || !coarsest) return;
      if (coarsest !== finest && !(await drawLevel(coarsest, mine, false))) return;
      await drawLevel(finest, mine, true, coarsest !== finest);
    },
    async choose(lod) {
      await drawLevel(lod, ++serial, true);
    },
  };
}
