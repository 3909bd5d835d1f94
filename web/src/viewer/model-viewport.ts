/** The three.js view of one model: loading a GLB, orbiting, picking parts, painting, styling, playing, measuring and cutting it. */
import { Box3, Clock, Color, Group, PerspectiveCamera, Scene, Vector3, WebGLRenderer } from 'three';
import type { Camera } from 'three';
import type { Material as ThreeMaterial, Mesh, Object3D, Plane } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import type { Material } from '../api/types.ts';
import { AnimationPlayer } from './animation-player.ts';
import {
  ViewClicks,
  type MeasureHandler,
  type PickHandler,
  type SurfaceClickHandler,
} from './click-events.ts';
import { disposeObject } from './dispose-object.ts';
import { fitCanvas } from './fit-canvas.ts';
import { frameBox, frameCamera, frameFromHere } from './frame-camera.ts';
import { installLighting, type ViewLighting } from './lighting.ts';
import { MeasureOverlay } from './measure-tool.ts';
import { collectPartMeshes, drawnCounts, groupIdOf, isShown, originalMaterials } from './part-meshes.ts';
import type { DrawnCounts } from './part-meshes.ts';
import { PartDraws } from './part-draws.ts';
import { PartPaint } from './part-paint.ts';
import { PartStyles } from './part-styles.ts';
import { SectionCaps } from './section-caps.ts';
import { SectionPlanes } from './section-planes.ts';
import { createPartsLoader, splitByPart } from './tile-parts.ts';
import { warmModelShaders } from './shader-warmup.ts';
import { TiledModel, type DrawnTiles } from './tiled-model.ts';

export type { DrawnCounts } from './part-meshes.ts';
export type { MeasureHandler, PickHandler, SurfaceClickHandler } from './click-events.ts';
/** The camera and its orbit controls, which saved views and flying to a pin move. */
export interface CameraRig {
  camera: PerspectiveCamera;
  controls: OrbitControls;
}

/** Background of the view; the end-to-end test tells the model from the background by it. */
export const VIEW_BACKGROUND = '#262b36';
/** Measure markers are this share of the model's size across. */
const MARKER_SHARE = 0.012;

/** A WebGL view bound to a container element; call {@link ModelViewport.dispose} when leaving the page. */
export class ModelViewport {
  readonly canvas: HTMLCanvasElement;
  /** Objects drawn beside the model and never picked: a compared version's removed parts. */
  readonly extras = new Group();
  /** Parts a click looks past to whatever lies behind them (compare mode's see-through unchanged parts). */
  lookPast: ReadonlySet<string> = new Set();
  protected readonly renderer: WebGLRenderer;
  private readonly scene = new Scene();
  protected readonly camera = new PerspectiveCamera(45, 1, 0.01, 1000);
  protected readonly controls: OrbitControls;
  // Every level is meshopt-compressed by default (GLB_COMPRESSION); the decoder is bundled, not fetched.
  // WebP textures (EXT_texture_webp, LOD_TEXTURES) GLTFLoader decodes itself.
  private readonly loader = createPartsLoader();
  private readonly styles = new PartStyles();
  private readonly measure = new MeasureOverlay();
  /** The section planes; call {@link ModelViewport.sectionsChanged} after changing them. */
  readonly sections = new SectionPlanes();
  private readonly caps = new SectionCaps();
  private readonly clock = new Clock();
  private readonly resizeObserver: ResizeObserver;
  private readonly lighting: ViewLighting;
  private root: Object3D | null = null;
  protected tiled: TiledModel | null = null;
  // Settles a tileset's opening once a frame has drawn some of it.
  private firstTiles: ((counts: DrawnTiles) => void) | null = null;
  protected bounds = new Box3();
  private player: AnimationPlayer | null = null;
  protected partMeshes = new Map<string, Mesh[]>();
  private originals = new Map<Mesh, ThreeMaterial | ThreeMaterial[]>();
  private readonly paint = new PartPaint();
  /** Draws the plain parts a call per batched primitive or shared mesh and material, not a call per part. */
  private readonly partDraws = new PartDraws();
  /** What a mesh is drawn with but for the styles: its bound material's, else its own. */
  private readonly ownMaterial = (mesh: Mesh): ThreeMaterial | ThreeMaterial[] =>
    this.paint.materialOf(groupIdOf(mesh)) || (this.originals.get(mesh) ?? mesh.material);
  private readonly clicks: ViewClicks;
  private readonly frameListeners = new Set<() => void>();
  private framed = false;
  private loadSerial = 0;
  private renderQueued = false;
  private disposed = false;

  constructor(container: HTMLElement, onPick: PickHandler, label: string) {
    // The stencil buffer is what section caps are drawn with.
    this.renderer = new WebGLRenderer({ antialias: true, stencil: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.canvas = this.renderer.domElement;
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', label);
    container.appendChild(this.canvas);

    this.scene.background = new Color(VIEW_BACKGROUND);
    this.lighting = installLighting(this.renderer, this.scene, this.camera);
    this.scene.add(this.camera, this.styles.overlays, this.measure.group, this.extras, this.partDraws.group);

    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.listenToKeyEvents(this.canvas);
    this.controls.addEventListener('change', () => this.requestRender());

    this.clicks = new ViewClicks({
      canvas: this.canvas,
      camera: () => this.viewCamera,
      snapCamera: this.camera,
      root: () => this.root,
      keep: (entry) =>
        isShown(entry.object) &&
        !this.styles.isGhost(entry.object) &&
        this.sections.active().every((plane) => plane.distanceToPoint(entry.point) >= 0),
      lookPast: (entry) => this.lookPast.has(groupIdOf(entry.object) ?? ''),
      onPick,
      focus: (groupId) => this.frameParts([groupId]),
    });

    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(container);
    this.resize();
  }

  /** Loads a GLB (replacing the current one) and returns what it draws; keeps the camera after the first load. */
  async load(url: string): Promise<DrawnCounts> {
    const serial = ++this.loadSerial;
    const gltf = await this.loader.loadAsync(url);
    if (serial !== this.loadSerial) {
      const counts = drawnCounts(gltf.scene);
      disposeObject(gltf.scene);
      return counts;
    }
    const previous = this.player;
    this.clearModel();
    // A level of many parts draws them batched: each part gets its mesh back to be picked, painted and hidden.
    splitByPart(gltf.scene);
    this.root = gltf.scene;
    this.scene.add(this.root);
    this.bounds = new Box3().setFromObject(this.root);
    this.sections.setBounds(this.bounds);
    this.caps.setModel(this.root, this.bounds);
    this.partMeshes = collectPartMeshes(this.root);
    this.originals = originalMaterials(this.partMeshes, new Map());
    this.player = gltf.animations.length > 0 ? new AnimationPlayer(this.root, gltf.animations) : null;
    // Another level of the same model carries the same clips: keep playing where it was.
    if (previous && this.player) {
      this.player.setPlaying(previous.isPlaying);
      this.player.seek(previous.time);
    }
    previous?.dispose();
    if (!this.framed) frameCamera(this.camera, this.controls, this.root);
    this.framed = true;
    this.applyPaint();
    this.partsChanged();
    this.requestRender();
    return drawnCounts(this.root);
  }

  /**
   * Streams a 3D Tiles tileset (replacing the current model): tiles load as the camera needs them (their shaders
   * compiled meanwhile). Resolves with what the first frame showing any of it draws; the camera frames its bounds.
   */
  loadTiles(url: string): Promise<DrawnTiles> {
    ++this.loadSerial;
    this.clearModel();
    this.player?.dispose();
    this.player = null;
    this.bounds = new Box3();
    const { camera, renderer } = this;
    const tiled = (this.tiled = new TiledModel({
      url,
      camera,
      renderer,
      onChange: () => this.tilesChanged(tiled),
    }));
    this.root = tiled.root;
    this.scene.add(this.root);
    void warmModelShaders(renderer, camera, this.scene);
    this.requestRender();
    return new Promise((resolve) => (this.firstTiles = resolve));
  }

  /** After a frame drew some model: marks the canvas (`data-drawn`), lights it fully, settles a tileset's opening. */
  private drewGeometry(triangles: number): void {
    if (!this.canvas.dataset.drawn) performance.mark('vitrine:first-frame');
    this.canvas.dataset.drawn = 'true';
    this.lighting.addEnvironmentSoon(() => this.requestRender());
    this.firstTiles?.({ triangles, points: 0, bytes: this.tiled?.fetchedBytes ?? 0 });
    this.firstTiles = null;
  }

  /** Paints each part with its bound material; parts missing from the map show their own materials. */
  setPaint(paint: Map<string, Material>): void {
    this.paint.set(paint);
    this.applyPaint();
    this.requestRender();
  }

  /** Highlights the selected parts, drawn over everything so an inner part still shows. */
  setSelection(selection: Set<string>): void {
    // X-ray ghosts nothing while nothing is selected: a first selection or a cleared one restyles every part.
    const everyPart = this.styles.ghostingChanges(selection);
    const changed = this.styles.setSelection(selection);
    this.restyle(everyPart ? null : changed);
  }

  /** Hides the given parts and shows every other one. */
  setHidden(hidden: Set<string>): void {
    this.restyle(this.styles.setHidden(hidden));
  }

  /** Ghosts the parts outside the selection. */
  setXray(on: boolean): void {
    this.styles.setXray(on);
    this.restyle();
  }

  /** The animation of the loaded level, or null when it has none. */
  get animation(): AnimationPlayer | null {
    return this.player;
  }

  /** Asks for frames while an animation plays (the view otherwise draws only on change). */
  animationChanged(): void {
    this.clock.getDelta();
    this.requestRender();
  }

  /** While a handler is set, clicks place measure points instead of selecting parts. */
  setMeasuring(handler: MeasureHandler | null): void {
    this.clicks.setMeasuring(handler);
  }

  /** While a handler is set, clicks on a surface go to it instead of selecting parts. */
  setSurfaceClick(handler: SurfaceClickHandler | null): void {
    this.clicks.setSurfaceClick(handler);
  }

  /** Calls `listener` after every drawn frame (overlays follow the camera); returns the unsubscribe. */
  onFrame(listener: () => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  /** The camera and its controls; call {@link ModelViewport.requestRender} after moving them. */
  get rig(): CameraRig {
    return { camera: this.camera, controls: this.controls };
  }

  /** The loaded model's bounds (empty before the first level), the box section fractions are measured in. */
  get modelBounds(): Box3 {
    return this.bounds.clone();
  }

  /** Whether the view streams tiles and some are still on their way for the current camera. */
  get streamingTiles(): boolean {
    return this.tiled?.loading ?? false;
  }

  /** The section planes cutting the model now. */
  activeSections(): Plane[] {
    return this.sections.active();
  }

  /** Draws the measured points (zero to two) and the line between two. */
  showMeasure(points: Vector3[]): void {
    const size = Math.max(this.bounds.isEmpty() ? 1 : this.bounds.getSize(new Vector3()).length(), 1e-6);
    this.measure.show(points, size * MARKER_SHARE);
    this.requestRender();
  }

  /** Cuts the model with the section planes as they are now. */
  sectionsChanged(): void {
    this.renderer.clippingPlanes = this.sections.active();
    this.requestRender();
  }

  /** Frames the given parts (an isolated selection) from where the camera looks now; none loaded, nothing. */
  frameParts(groupIds: Iterable<string>): void {
    const meshes = [...groupIds].flatMap((groupId) => this.partMeshes.get(groupId) ?? []);
    if (frameFromHere(this.camera, this.controls, meshes)) this.requestRender();
  }

  /** Frames the whole model again. */
  resetView(): void {
    if (!this.bounds.isEmpty()) frameBox(this.camera, this.controls, this.bounds);
    this.requestRender();
  }

  /** The camera frames are drawn and clicks are picked with (a subclass may draw with another). */
  protected get viewCamera(): Camera {
    return this.camera;
  }

  /** Hears that the loaded parts' meshes changed (a level loaded, tiles came or went). */
  protected partsChanged(): void {}

  /** Frees the GPU resources and listeners. */
  dispose(): void {
    this.disposed = true;
    this.loadSerial += 1;
    this.resizeObserver.disconnect();
    this.controls.dispose();
    this.clearModel();
    this.player?.dispose();
    this.styles.dispose();
    this.caps.dispose();
    this.measure.dispose();
    this.lighting.dispose();
    this.renderer.dispose();
    this.canvas.remove();
  }

  /** Takes in the parts of tiles that came or went, framing the tileset once its bounds are known. */
  private tilesChanged(tiled: TiledModel): void {
    if (tiled !== this.tiled) return;
    this.partMeshes = tiled.partMeshes();
    this.originals = originalMaterials(this.partMeshes, this.originals);
    if (this.bounds.isEmpty() && tiled.bounds(this.bounds)) {
      this.sections.setBounds(this.bounds);
      this.caps.setModel(this.root, this.bounds);
      if (!this.framed) frameBox(this.camera, this.controls, this.bounds);
      this.framed = true;
    }
    this.paint.add(this.partMeshes.keys());
    this.restyle();
    this.partsChanged();
  }

  private applyPaint(): void {
    this.paint.remake(this.partMeshes.keys());
    this.restyle();
  }

  /** Re-applies paint, visibility, x-ray and highlight to the parts `only` names, or to every part. */
  protected restyle(only: Iterable<string> | null = null): void {
    if (only) this.styles.applyTo(this.partMeshes, only, this.ownMaterial);
    else this.styles.apply(this.partMeshes, this.ownMaterial);
    this.requestRender();
  }

  private clearModel(): void {
    if (!this.root) return;
    this.styles.apply(new Map(), () => []);
    this.scene.remove(this.root);
    // Put the loaded materials back first so disposal reaches them, not only the painted ones.
    for (const [mesh, original] of this.originals) mesh.material = original;
    if (this.tiled) this.tiled.dispose();
    else disposeObject(this.root);
    this.tiled = null;
    this.paint.clear();
    this.root = null;
    this.caps.setModel(null, new Box3());
    this.partDraws.dispose();
    this.partMeshes = new Map();
    this.originals = new Map();
  }

  private resize(): void {
    if (fitCanvas(this.renderer, this.camera)) this.requestRender();
  }

  /** Draws a frame soon; the view otherwise draws only on change. */
  requestRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      if (this.disposed) return;
      const delta = this.clock.getDelta();
      if (this.player?.isPlaying) {
        this.player.advance(delta);
        this.requestRender();
      }
      this.tiled?.update();
      const { triangles, points } = this.drawFrame();
      if (triangles + points > 0) this.drewGeometry(triangles);
      // Tiles on their way need frames to be chosen and shown.
      if (this.tiled?.loading) this.requestRender();
      for (const listener of this.frameListeners) listener();
    });
  }

  /**
   * Draws the scene and the section caps with the view's camera; returns what the scene's pass drew. The canvas
   * carries the scene pass's draw calls (`data-draw-calls`), which merged and instanced parts keep to a few.
   */
  protected drawFrame(): { triangles: number; points: number } {
    const camera = this.viewCamera;
    this.partDraws.render(this.partMeshes, this.scene, () => this.renderer.render(this.scene, camera));
    const { triangles, points, calls } = this.renderer.info.render;
    if (this.canvas.dataset.drawCalls !== String(calls)) this.canvas.dataset.drawCalls = String(calls);
    this.caps.render(
      this.renderer,
      camera,
      this.sections.active(),
      (mesh) => isShown(mesh) && !this.styles.isGhost(mesh),
    );
    return { triangles, points };
  }
}
