/** The three.js view of one model: loading a GLB, orbiting, picking parts, painting and highlighting them. */
import {
  Box3,
  Box3Helper,
  Color,
  Group,
  PerspectiveCamera,
  Raycaster,
  Scene,
  Vector2,
  WebGLRenderer,
} from 'three';
import type { Material as ThreeMaterial, Mesh, Texture, Object3D } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import type { Material } from '../api/types.ts';
import { frameCamera } from './frame-camera.ts';
import { installLighting } from './lighting.ts';
import { materialToThree } from './material-to-three.ts';
import { collectPartMeshes, countTriangles, groupIdOf } from './part-meshes.ts';

/** Called when the person clicks the view: the part hit (or null for empty space) and whether to add to the selection. */
export type PickHandler = (groupId: string | null, additive: boolean) => void;

/** Background of the view; the end-to-end test tells the model from the background by it. */
export const VIEW_BACKGROUND = '#262b36';
const SELECTION_COLOR = 0xffc400;
/** A pointer that moved further than this between down and up was orbiting, not clicking. */
const CLICK_TOLERANCE_PX = 5;

/** A WebGL view bound to a container element; call {@link ModelView.dispose} when leaving the page. */
export class ModelView {
  readonly canvas: HTMLCanvasElement;
  private readonly renderer: WebGLRenderer;
  private readonly scene = new Scene();
  private readonly camera = new PerspectiveCamera(45, 1, 0.01, 1000);
  private readonly controls: OrbitControls;
  // LOD 1 and 2 may be meshopt-compressed (GLB_COMPRESSION=meshopt); LOD 0 never is.
  private readonly loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
  private readonly helpers = new Group();
  private readonly resizeObserver: ResizeObserver;
  private root: Object3D | null = null;
  private partMeshes = new Map<string, Mesh[]>();
  private originals = new Map<Mesh, ThreeMaterial | ThreeMaterial[]>();
  private painted: ThreeMaterial[] = [];
  private paint = new Map<string, Material>();
  private selection = new Set<string>();
  private framed = false;
  private loadSerial = 0;
  private renderQueued = false;
  private disposed = false;
  private pointerDown: { x: number; y: number } | null = null;
  private readonly removeLighting: () => void;

  constructor(
    container: HTMLElement,
    private readonly onPick: PickHandler,
    label: string,
  ) {
    this.renderer = new WebGLRenderer({ antialias: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.canvas = this.renderer.domElement;
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', label);
    container.appendChild(this.canvas);

    this.scene.background = new Color(VIEW_BACKGROUND);
    this.removeLighting = installLighting(this.renderer, this.scene, this.camera);
    this.scene.add(this.camera, this.helpers);

    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.listenToKeyEvents(this.canvas);
    this.controls.addEventListener('change', () => this.requestRender());

    this.canvas.addEventListener('pointerdown', (event) => {
      this.pointerDown = event.button === 0 ? { x: event.clientX, y: event.clientY } : null;
    });
    this.canvas.addEventListener('pointerup', (event) => this.handlePointerUp(event));

    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(container);
    this.resize();
  }

  /** Loads a GLB (replacing the current one) and returns the triangles it draws; keeps the camera after the first load. */
  async load(url: string): Promise<{ triangles: number }> {
    const serial = ++this.loadSerial;
    const gltf = await this.loader.loadAsync(url);
    if (serial !== this.loadSerial) {
      disposeObject(gltf.scene);
      return { triangles: countTriangles(gltf.scene) };
    }
    this.clearModel();
    this.root = gltf.scene;
    this.scene.add(this.root);
    this.partMeshes = collectPartMeshes(this.root);
    this.originals = new Map();
    for (const meshes of this.partMeshes.values()) {
      for (const mesh of meshes) this.originals.set(mesh, mesh.material);
    }
    if (!this.framed) {
      frameCamera(this.camera, this.controls, this.root);
      this.framed = true;
    }
    this.applyPaint();
    this.updateHighlights();
    this.requestRender();
    return { triangles: countTriangles(this.root) };
  }

  /** Paints each part with its bound material; parts missing from the map show their own materials. */
  setPaint(paint: Map<string, Material>): void {
    this.paint = paint;
    this.applyPaint();
    this.requestRender();
  }

  /** Outlines the selected parts. */
  setSelection(selection: Set<string>): void {
    this.selection = new Set(selection);
    this.updateHighlights();
    this.requestRender();
  }

  /** Frames the whole model again. */
  resetView(): void {
    if (this.root) frameCamera(this.camera, this.controls, this.root);
    this.requestRender();
  }

  /** Frees the GPU resources and listeners. */
  dispose(): void {
    this.disposed = true;
    this.loadSerial += 1;
    this.resizeObserver.disconnect();
    this.controls.dispose();
    this.clearModel();
    this.removeLighting();
    this.renderer.dispose();
    this.canvas.remove();
  }

  private handlePointerUp(event: PointerEvent): void {
    const start = this.pointerDown;
    this.pointerDown = null;
    if (!start || !this.root) return;
    if (Math.hypot(event.clientX - start.x, event.clientY - start.y) > CLICK_TOLERANCE_PX) return;
    const rect = this.canvas.getBoundingClientRect();
    const pointer = new Vector2(
      ((event.clientX - rect.left) / rect.width) * 2 - 1,
      -((event.clientY - rect.top) / rect.height) * 2 + 1,
    );
    const raycaster = new Raycaster();
    raycaster.setFromCamera(pointer, this.camera);
    const hit = raycaster.intersectObject(this.root, true).find((entry) => entry.object.visible);
    this.onPick(hit ? groupIdOf(hit.object) : null, event.shiftKey || event.ctrlKey || event.metaKey);
  }

  private applyPaint(): void {
    for (const material of this.painted) material.dispose();
    this.painted = [];
    const byMaterial = new Map<number, ThreeMaterial>();
    for (const [groupId, meshes] of this.partMeshes) {
      const bound = this.paint.get(groupId);
      let replacement: ThreeMaterial | undefined;
      if (bound) {
        replacement = byMaterial.get(bound.id);
        if (!replacement) {
          replacement = materialToThree(bound);
          byMaterial.set(bound.id, replacement);
          this.painted.push(replacement);
        }
      }
      for (const mesh of meshes) mesh.material = replacement ?? this.originals.get(mesh) ?? mesh.material;
    }
  }

  private updateHighlights(): void {
    for (const helper of this.helpers.children) (helper as Box3Helper).dispose();
    this.helpers.clear();
    for (const groupId of this.selection) {
      const meshes = this.partMeshes.get(groupId);
      if (!meshes) continue;
      const box = new Box3();
      for (const mesh of meshes) box.expandByObject(mesh);
      if (!box.isEmpty()) this.helpers.add(new Box3Helper(box, SELECTION_COLOR));
    }
  }

  private clearModel(): void {
    if (!this.root) return;
    this.scene.remove(this.root);
    // Put the loaded materials back first so disposal reaches them, not only the painted ones.
    for (const [mesh, original] of this.originals) mesh.material = original;
    disposeObject(this.root);
    for (const material of this.painted) material.dispose();
    this.painted = [];
    this.root = null;
    this.partMeshes = new Map();
    this.originals = new Map();
  }

  private resize(): void {
    const parent = this.canvas.parentElement;
    if (!parent) return;
    const width = Math.max(parent.clientWidth, 1);
    const height = Math.max(parent.clientHeight, 1);
    // CSS sizes the canvas; only the drawing buffer follows the container.
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  private requestRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      if (!this.disposed) this.renderer.render(this.scene, this.camera);
    });
  }
}

/** Releases geometries, materials and textures of a subtree. */
function disposeObject(root: Object3D): void {
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    mesh.geometry.dispose();
    const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    for (const material of materials) {
      for (const value of Object.values(material)) {
        if ((value as Texture | null)?.isTexture) (value as Texture).dispose();
      }
      material.dispose();
    }
  });
}
