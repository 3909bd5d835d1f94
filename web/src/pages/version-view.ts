/**
 * What the view shows of a model's versions: the current one (as the workspace opens it), an older one by its own
 * levels, or two compared: the newer one painted by the diff (added green, changed amber, unchanged dimmed) with
 * the older one's removed parts as red ghosts, and the parts tree marked and filterable by change.
 *
 * The LOD switcher follows the version drawn: an older one's levels replace the current one's buttons until the
 * current version is opened again.
 *
 * The view's element tells scripts and tests what it shows: `data-version` the version drawn (absent for the
 * current one), `data-compare` `a-b` once a comparison is fully drawn, `data-ghosts` the removed parts' meshes.
 */
import { expiresSoon } from '../api/file-urls.ts';
import type { Material, Model } from '../api/types.ts';
import {
  diffVersions,
  getVersion,
  versionLods,
  type ModelVersion,
  type VersionDiff,
} from '../api/versions-api.ts';
import { formatDrawn } from '../ui/format.ts';
import { attempt } from '../ui/notify.ts';
import { diffPaint, diffStates, groupsIn, type PartDiffState } from '../viewer/diff-colors.ts';
import { createLevelLoader } from '../viewer/level-loader.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { servedLevels } from '../viewer/served-levels.ts';
import { VersionGhosts } from '../viewer/version-ghosts.ts';
import { lodDescriber } from './lod-description.ts';
import { createLodSwitcher, showLodCount } from './lod-switcher.ts';
import type { PartsTree } from '../parts-tree/parts-tree.ts';
import type { CurrentLevels } from './workspace-levels.ts';

/** What of the workspace the version view acts on. */
export interface VersionViewContext {
  model: Model;
  view: ModelViewport;
  /** The view's element, which carries the `data-` attributes. */
  viewport: HTMLElement;
  /** The readout of what is drawn. */
  triangleLabel: HTMLElement;
  tree: PartsTree;
  /** The current version's levels: opened again, and the LOD switcher's place an older version borrows. */
  current: CurrentLevels;
  /** Paints the view with `paint` instead of the bound materials; null gives the bound materials back. */
  setPaintOverride: (paint: Map<string, Material> | null) => void;
}

/** Switches the view between versions. */
export interface VersionView {
  /** Draws `version` (the current one: as the workspace opens it). */
  open(version: ModelVersion): Promise<void>;
  /** Draws version `b` painted by its diff from `a`, with `a`'s removed parts as ghosts; resolves with the diff. */
  compare(a: ModelVersion, b: ModelVersion): Promise<VersionDiff>;
  /** What happened to a part in the comparison shown; undefined outside compare mode. */
  stateOf(groupId: string): PartDiffState | undefined;
  /** Frees the ghosts. */
  dispose(): void;
}

/** Builds the version view of a workspace. */
export function createVersionView(context: VersionViewContext): VersionView {
  const { model, view, viewport, triangleLabel, tree } = context;
  const ghosts = new VersionGhosts(view.extras, () => view.requestRender());
  let states: Map<string, PartDiffState> | null = null;
  let serial = 0;

  /** The version with file URLs that will not expire while they are fetched. */
  const fresh = async (version: ModelVersion): Promise<ModelVersion> =>
    version.lods.some((lod) => expiresSoon(lod.url)) ? getVersion(model.id, version.number) : version;

  /** Draws a version's levels, coarse first, saying which version is drawn; the LOD switcher offers its levels. */
  const drawVersion = async (version: ModelVersion, mine: number): Promise<void> => {
    const lods = versionLods(version);
    const loader = createLevelLoader(lods, {
      element: viewport,
      draw: (lod) => view.load(lod.url),
      onShown: (lod, { triangles, points }, final) => {
        if (mine !== serial) return;
        viewport.dataset.triangles = String(triangles);
        viewport.dataset.points = String(points);
        const drawn = `Version ${version.number} · LOD ${lod.level}: ${formatDrawn(triangles, points)} shown`;
        triangleLabel.textContent = final ? drawn : `${drawn}, loading LOD 0…`;
        if (points > 0) showLodCount(switcher, lod.level, formatDrawn(triangles, points));
      },
    });
    const switcher = createLodSwitcher(
      lods,
      servedLevels(lods)[0]?.level ?? 0,
      (lod) => attempt(`Loading LOD ${lod.level}`, () => loader.choose(lod)),
      lodDescriber(version),
    );
    if (mine === serial) context.current.showLevels(switcher);
    await loader.open();
  };

  /** Leaves compare mode: no ghosts, the bound paint back, the tree unmarked. */
  const leaveCompare = (): void => {
    states = null;
    view.lookPast = new Set();
    ghosts.clear();
    context.setPaintOverride(null);
    tree.setChanges(null);
    delete viewport.dataset.compare;
    delete viewport.dataset.ghosts;
  };

  return {
    async open(version) {
      const mine = ++serial;
      leaveCompare();
      if (version.current) {
        delete viewport.dataset.version;
        context.current.showLevels(null);
        await context.current.open();
        return;
      }
      viewport.dataset.version = String(version.number);
      await drawVersion(await fresh(version), mine);
    },
    async compare(a, b) {
      const mine = ++serial;
      leaveCompare();
      const [diff, older, newer] = await Promise.all([
        diffVersions(model.id, a.number, b.number),
        fresh(a),
        fresh(b),
      ]);
      if (mine !== serial) return diff;
      states = diffStates(diff);
      context.setPaintOverride(diffPaint(states));
      tree.setChanges(states);
      // A click on a changed part seen through an unchanged one reaches the changed part.
      view.lookPast = groupsIn(states, 'unchanged');
      viewport.dataset.version = String(b.number);
      const finest = servedLevels(versionLods(older))[0];
      const [, ghostMeshes] = await Promise.all([
        drawVersion(newer, mine),
        finest ? ghosts.show(finest.url, groupsIn(states, 'removed')) : Promise.resolve(0),
      ]);
      if (mine !== serial) return diff;
      viewport.dataset.ghosts = String(ghostMeshes);
      viewport.dataset.compare = `${a.number}-${b.number}`;
      return diff;
    },
    stateOf: (groupId) => states?.get(groupId),
    dispose: () => ghosts.dispose(),
  };
}
