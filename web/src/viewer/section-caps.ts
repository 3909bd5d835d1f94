/**
 * Caps for section cuts, so a cut solid shows a filled face at the plane instead of a hollow shell (the stencil
 * technique of three.js' clipping example). For each active plane, the visible closed meshes are drawn into the stencil
 * buffer only, clipped by that plane: back faces count up, front faces count down, so a pixel ends non-zero where
 * the plane lies inside a solid. A quad on the plane, clipped by the other planes, is then drawn where the count is
 * non-zero, depth-tested against the model already drawn.
 */
import {
  AlwaysStencilFunc,
  BackSide,
  Color,
  DecrementWrapStencilOp,
  DoubleSide,
  FrontSide,
  IncrementWrapStencilOp,
  InstancedMesh,
  Mesh,
  MeshBasicMaterial,
  NotEqualStencilFunc,
  PlaneGeometry,
  Quaternion,
  ReplaceStencilOp,
  Scene,
  SkinnedMesh,
  Vector3,
} from 'three';
import type { Box3, BufferGeometry, Camera, Object3D, Plane, WebGLRenderer } from 'three';
import { isClosedSurface } from './closed-surface.ts';

/** Colour of every cut face: a warm terracotta that reads against the view's background and most parts. */
export const SECTION_CAP_COLOR = '#d0643c';

/** Counts the faces in front of and behind a pixel along the view ray; writes nothing else. */
function stencilCounter(side: typeof FrontSide | typeof BackSide): MeshBasicMaterial {
  const operation = side === BackSide ? IncrementWrapStencilOp : DecrementWrapStencilOp;
  return new MeshBasicMaterial({
    side,
    colorWrite: false,
    depthWrite: false,
    depthTest: false,
    stencilWrite: true,
    stencilFunc: AlwaysStencilFunc,
    stencilFail: operation,
    stencilZFail: operation,
    stencilZPass: operation,
  });
}

/** One stand-in per closed mesh, sharing its geometry, drawn with the stencil counters. */
interface StandIn {
  source: Mesh;
  proxy: Mesh;
}

/** The cap pass of a {@link ModelViewport}: {@link SectionCaps.render} runs after the model is drawn. */
export class SectionCaps {
  private readonly counting = new Scene();
  private readonly capScene = new Scene();
  private readonly back = stencilCounter(BackSide);
  private readonly front = stencilCounter(FrontSide);
  private readonly capMaterial = new MeshBasicMaterial({
    color: new Color(SECTION_CAP_COLOR),
    side: DoubleSide,
    // The exact colour on screen, whatever the tone map, so a cut face is recognisable (and testable).
    toneMapped: false,
    stencilWrite: true,
    stencilRef: 0,
    stencilFunc: NotEqualStencilFunc,
    stencilFail: ReplaceStencilOp,
    stencilZFail: ReplaceStencilOp,
    stencilZPass: ReplaceStencilOp,
  });
  private readonly cap = new Mesh(new PlaneGeometry(1, 1), this.capMaterial);
  /** Null until the first cut of the loaded model. */
  private standIns: StandIn[] | null = null;
  private root: Object3D | null = null;
  private bounds: Box3 | null = null;

  constructor() {
    // Stand-ins take their sources' world matrices as they are; nothing here should recompute them.
    this.counting.matrixWorldAutoUpdate = false;
    this.capScene.add(this.cap);
  }

  /**
   * Takes a newly loaded model and its bounds. Its closed meshes are found when a section is first drawn (points,
   * lines and open shells have no inside to cap), so a model never cut costs nothing.
   */
  setModel(root: Object3D | null, bounds: Box3): void {
    this.counting.clear();
    this.standIns = null;
    this.root = root;
    this.bounds = bounds.clone();
  }

  /**
   * Draws the caps of `planes` over what the renderer drew last. `countable` says whether a mesh takes part (shown
   * and solid, not an x-ray ghost). Leaves the renderer's clipping planes as `planes`.
   */
  render(renderer: WebGLRenderer, camera: Camera, planes: Plane[], countable: (mesh: Mesh) => boolean): void {
    if (planes.length === 0 || !this.bounds || !this.root) return;
    const standIns = (this.standIns ??= this.collect(this.root));
    if (standIns.length === 0) return;
    for (const { source, proxy } of standIns) {
      proxy.visible = countable(source);
      proxy.matrixWorld.copy(source.matrixWorld);
      // An attached skinned mesh recomputes this from its world matrix each frame; the stand-in follows its source.
      if (proxy instanceof SkinnedMesh && source instanceof SkinnedMesh)
        proxy.bindMatrixInverse.copy(source.bindMatrixInverse);
    }
    const autoClear = renderer.autoClear;
    renderer.autoClear = false;
    for (const plane of planes) {
      renderer.clearStencil();
      renderer.clippingPlanes = [plane];
      this.counting.overrideMaterial = this.back;
      renderer.render(this.counting, camera);
      this.counting.overrideMaterial = this.front;
      renderer.render(this.counting, camera);
      renderer.clippingPlanes = planes.filter((other) => other !== plane);
      this.placeCap(plane);
      renderer.render(this.capScene, camera);
    }
    renderer.clippingPlanes = planes;
    renderer.autoClear = autoClear;
  }

  /** Frees the materials and the quad. */
  dispose(): void {
    this.counting.clear();
    this.standIns = null;
    this.root = null;
    this.back.dispose();
    this.front.dispose();
    this.capMaterial.dispose();
    this.cap.geometry.dispose();
  }

  /** Stand-ins for the closed meshes under `root`; a geometry shared by several meshes is checked once. */
  private collect(root: Object3D): StandIn[] {
    const closed = new Map<BufferGeometry, boolean>();
    const standIns: StandIn[] = [];
    root.traverse((object) => {
      const mesh = object as Mesh;
      if (!mesh.isMesh) return;
      if (!closed.has(mesh.geometry)) closed.set(mesh.geometry, isClosedSurface(mesh.geometry));
      if (!closed.get(mesh.geometry)) return;
      const proxy = standInFor(mesh, this.back);
      proxy.matrixAutoUpdate = false;
      this.counting.add(proxy);
      standIns.push({ source: mesh, proxy });
    });
    return standIns;
  }

  /** Lays the quad on `plane`, large enough to cover the model's box wherever the plane crosses it. */
  private placeCap(plane: Plane): void {
    const bounds = this.bounds as Box3;
    const center = bounds.getCenter(new Vector3());
    const size = bounds.getSize(new Vector3()).length() * 1.1 + 1e-6;
    plane.projectPoint(center, this.cap.position);
    this.cap.quaternion.copy(new Quaternion().setFromUnitVectors(new Vector3(0, 0, 1), plane.normal));
    this.cap.scale.set(size, size, 1);
    this.cap.updateMatrixWorld(true);
  }
}

/** A mesh drawing `source`'s geometry the way it is drawn: instanced and skinned ones keep their instances and bones. */
function standInFor(source: Mesh, material: MeshBasicMaterial): Mesh {
  if (source instanceof InstancedMesh) {
    const proxy = new InstancedMesh(source.geometry, material, source.count);
    proxy.instanceMatrix = source.instanceMatrix;
    return proxy;
  }
  if (source instanceof SkinnedMesh) {
    const proxy = new SkinnedMesh(source.geometry, material);
    proxy.bind(source.skeleton, source.bindMatrix);
    return proxy;
  }
  return new Mesh(source.geometry, material);
}
