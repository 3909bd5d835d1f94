/**
 * A model streamed as 3D Tiles (the catalog's `tileset_url`): tiles come and go with the camera, and each tile's
 * meshes are split by the part (`EXT_mesh_features` id, resolved to a `group_id` by the tile's
 * `EXT_structural_metadata` table) so that painting, hiding, isolating, x-ray and picking treat a tiled model's
 * parts exactly as a plain one's.
 */
import type { Box3, Camera, Mesh, Object3D, WebGLRenderer } from 'three';
import { TilesRenderer } from '3d-tiles-renderer';
import { GLTFExtensionsPlugin } from '3d-tiles-renderer/plugins';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import type { DrawnCounts } from './part-meshes.ts';
import { splitByPart } from './tile-parts.ts';
import { prefetchTileset, takePrefetched } from './tileset-prefetch.ts';

/** What the first frame of a tileset drew, and the bytes of tileset and tiles fetched for it. */
export interface DrawnTiles extends DrawnCounts {
  bytes: number;
}

/** How a tiled model is opened. */
export interface TiledModelOptions {
  /** The tileset's `tileset.json`. */
  url: string;
  camera: Camera;
  renderer: WebGLRenderer;
  /** Hears that tiles came or went (the parts' meshes changed) or that a frame is wanted. */
  onChange: () => void;
}

/** Screen-space error (pixels) a tile may show before its children replace it. */
const ERROR_TARGET_PX = 12;

/** The tile renderer over one tileset and the part meshes of its loaded tiles. */
export class TiledModel {
  private readonly tiles: TilesRenderer;
  private readonly byTile = new Map<Object3D, Map<string, Mesh[]>>();
  private bytes = 0;

  constructor(private readonly options: TiledModelOptions) {
    // Already under way when the page started it with the model's record; else from here, root tile included.
    void prefetchTileset(options.url);
    this.tiles = new TilesRenderer(options.url);
    this.tiles.errorTarget = ERROR_TARGET_PX;
    // Tile content is meshopt-compressed; the decoder is bundled, not fetched.
    this.tiles.registerPlugin(new GLTFExtensionsPlugin({ metadata: true, meshoptDecoder: MeshoptDecoder }));
    // The renderer's queues run their jobs on animation frames, which a software renderer holds back for seconds
    // while it prefilters the environment; timers keep the downloads and parsing going meanwhile.
    for (const queue of [this.tiles.downloadQueue, this.tiles.parseQueue, this.tiles.processNodeQueue]) {
      (queue as unknown as ScheduledQueue)._schedulingCallback = (run) => setTimeout(run);
    }
    this.tiles.setCamera(options.camera);
    this.tiles.setResolutionFromRenderer(options.camera, options.renderer);
    // 3D Tiles stand +Z up and turn glTF content so; the viewer's frame is glTF's, +Y up.
    this.tiles.group.rotation.x = -Math.PI / 2;
    this.tiles.addEventListener('load-model', ({ scene }) => {
      performance.mark('vitrine:tile-loaded');
      this.byTile.set(scene, splitByPart(scene));
      options.onChange();
    });
    this.tiles.addEventListener('dispose-model', ({ scene }) => {
      this.byTile.delete(scene);
      options.onChange();
    });
    this.tiles.addEventListener('needs-update', () => options.onChange());
    // Choose the first tiles at once rather than at the next frame, which a busy renderer may hold back.
    this.tiles.addEventListener('load-tileset', () => {
      options.onChange();
      this.update();
    });
    this.tiles.addEventListener('tile-download-start', () => options.onChange());
    // Asked before the renderer's own fetch: counts what the tiles cost on the wire, for the page and its tests.
    this.tiles.registerPlugin({
      name: 'FETCHED_BYTES',
      fetchData: async (url: string, init: RequestInit) => {
        const response = await (takePrefetched(url, init) ?? fetch(url, init));
        this.bytes += Number(response.headers.get('content-length') ?? 0);
        return response;
      },
    });
    // Starts reading the tileset now rather than at the first frame, which a busy renderer may hold back.
    this.update();
  }

  /** The object to add to the scene. */
  get root(): Object3D {
    return this.tiles.group;
  }

  /** Bytes of tileset and tiles fetched so far. */
  get fetchedBytes(): number {
    return this.bytes;
  }

  /** Whether tiles are still on their way for the current view. */
  get loading(): boolean {
    const { downloading, parsing } = (this.tiles as unknown as { stats: TileStats }).stats;
    return downloading + parsing > 0;
  }

  /** The meshes of every part in the loaded tiles. */
  partMeshes(): Map<string, Mesh[]> {
    const parts = new Map<string, Mesh[]>();
    for (const tile of this.byTile.values()) {
      for (const [groupId, meshes] of tile) parts.set(groupId, [...(parts.get(groupId) ?? []), ...meshes]);
    }
    return parts;
  }

  /** The whole model's box in the viewer's frame, once the tileset is read; false before. */
  bounds(target: Box3): boolean {
    if (!this.tiles.getBoundingBox(target)) return false;
    this.tiles.group.updateMatrixWorld(true);
    target.applyMatrix4(this.tiles.group.matrixWorld);
    return true;
  }

  /** Chooses and loads the tiles the camera needs; call before each frame. */
  update(): void {
    this.options.camera.updateMatrixWorld();
    this.tiles.setResolutionFromRenderer(this.options.camera, this.options.renderer);
    this.tiles.update();
  }

  /** Frees the tiles and stops loading. */
  dispose(): void {
    this.tiles.dispose();
    this.byTile.clear();
  }
}

/** How a queue of the tile renderer schedules its next run of jobs (not in its type declarations). */
interface ScheduledQueue {
  _schedulingCallback: (run: () => void) => void;
}

/** The renderer's counts of tiles under way (not in its type declarations). */
interface TileStats {
  downloading: number;
  parsing: number;
}
