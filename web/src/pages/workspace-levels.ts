/** The levels of detail of the workspace's model: loaded into the view one after another, and the LOD switcher. */
import { getLod } from '../api/catalog-api.ts';
import { expiresSoon } from '../api/file-urls.ts';
import type { Lod, Model } from '../api/types.ts';
import { formatDrawn } from '../ui/format.ts';
import { attempt } from '../ui/notify.ts';
import { createLevelLoader, type LevelLoader } from '../viewer/level-loader.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import type { DrawnCounts } from '../viewer/part-meshes.ts';
import { openingLevel, openingWithTiles, openTiles, opensTiles } from '../viewer/tiles-opening.ts';
import { lodDescriber } from './lod-description.ts';
import { createLodSwitcher, showLodCount, showStreaming } from './lod-switcher.ts';

/** What the levels are shown in and report to. */
export interface WorkspaceLevelsOptions {
  view: ModelViewport;
  /** The view's element, whose `data-` attributes tell what is shown. */
  viewport: HTMLElement;
  /** The readout of the level shown and its count. */
  triangleLabel: HTMLElement;
  /** True once the workspace is gone: a level that arrives then is not shown. */
  isDisposed: () => boolean;
  /** Runs when a level is shown, before the readouts change. */
  onShown: () => void;
}

/** The level loader and the LOD switcher (null when the model lists no levels). */
export interface WorkspaceLevels {
  levels: LevelLoader;
  lodSwitcher: HTMLElement | null;
  /** The current version's levels as the version view uses them. */
  current: CurrentLevels;
}

/** The current version's levels, and the switcher's place that an older version's buttons borrow. */
export interface CurrentLevels {
  /** Opens the current version again, as the workspace first did. */
  open(): Promise<void>;
  /** Puts `switcher`'s buttons in the LOD switcher's place; null gives the current version's back. */
  showLevels(switcher: HTMLElement | null): void;
}

/** Sets up the loading of `model`'s levels into the view; nothing loads until `levels.open()`. */
export function createWorkspaceLevels(
  model: Model,
  lods: Lod[],
  options: WorkspaceLevelsOptions,
): WorkspaceLevels {
  const { view, viewport, triangleLabel } = options;
  // File URLs are signed for a while only: a level chosen long after the page opened asks for a fresh one.
  const freshUrl = async (lod: Lod): Promise<string> =>
    expiresSoon(lod.url) ? (await getLod(model.id, lod.level)).url : lod.url;
  // A model whose levels are not listed still has its LOD 0.
  const openable: Lod[] =
    lods.length > 0 || !model.model_url
      ? lods
      : [
          {
            level: 0,
            url: model.model_url,
            triangle_count: model.triangle_count ?? 0,
            size: 0,
            error: 0,
            reduced: false,
          },
        ];
  const byLevel = createLevelLoader(openable, {
    element: viewport,
    draw: async (lod) => view.load(await freshUrl(lod)),
    onLoading: (lod) => {
      if (viewport.dataset.state === 'loading') triangleLabel.textContent = `Loading LOD ${lod.level}…`;
    },
    onShown: (lod, { triangles, points }, final) => {
      if (options.isDisposed()) return;
      options.onShown();
      viewport.dataset.triangles = String(triangles);
      viewport.dataset.points = String(points);
      const drawn = formatDrawn(triangles, points);
      triangleLabel.textContent = final
        ? `LOD ${lod.level}: ${drawn} shown`
        : `LOD ${lod.level}: ${drawn} shown, loading LOD 0…`;
      // The catalog counts a point cloud's points for LOD 0 only; the other levels are counted here once seen.
      if (points > 0 && lodSwitcher) showLodCount(lodSwitcher, lod.level, drawn);
    },
    onError: (lod, error) => {
      triangleLabel.textContent = `LOD ${lod.level} could not be shown`;
      throw error;
    },
  });
  const tilesOpening = {
    view,
    element: viewport,
    onShown: ({ triangles }: DrawnCounts) => {
      if (options.isDisposed()) return;
      viewport.dataset.triangles = String(triangles);
      triangleLabel.textContent = `Streamed tiles: ${formatDrawn(triangles, 0)} in the first frame`;
    },
  };
  const tilesetUrl = model.tileset_url;
  const lodSwitcher =
    lods.length > 0
      ? createLodSwitcher(
          lods,
          // The level being opened to: choosing a coarser one while it loads stops there.
          openingLevel(lods),
          (lod) => attempt(`Loading LOD ${lod.level}`, () => byLevel.choose(lod)),
          lodDescriber(model),
          tilesetUrl
            ? {
                checked: opensTiles(lods, tilesetUrl),
                choose: () => attempt('Streaming the tiles', () => openTiles(tilesetUrl, tilesOpening)),
              }
            : undefined,
        )
      : null;
  // The Streamed entry says whether tiles are on their way, frame by frame.
  if (lodSwitcher && tilesetUrl) view.onFrame(() => showStreaming(lodSwitcher, view.streamingTiles));
  const levels = openingWithTiles(byLevel, openable, tilesetUrl, tilesOpening);
  // An older version's buttons take the place of these, in the same element the saved views read.
  const own = lodSwitcher ? Array.from(lodSwitcher.childNodes) : [];
  const showLevels = (switcher: HTMLElement | null) =>
    lodSwitcher?.replaceChildren(...(switcher ? Array.from(switcher.childNodes) : own));
  return { levels, lodSwitcher, current: { open: () => levels.open(), showLevels } };
}
