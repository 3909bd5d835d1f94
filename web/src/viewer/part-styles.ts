/** How each part is drawn beyond its material: hidden, ghosted by x-ray, or highlighted on top of everything. */
import { Box3, Box3Helper, Group, MeshBasicMaterial, MeshStandardMaterial, SkinnedMesh, Mesh } from 'three';
import type { LineBasicMaterial, Material as ThreeMaterial, Object3D } from 'three';

/** Colour of the selection highlight (amber, readable on light and dark parts). */
export const HIGHLIGHT_COLOR = 0xffb000;

/** Draws the selection tint after everything else and ignoring depth, so a part inside the model still shows. */
function highlightMaterial(): MeshBasicMaterial {
  return new MeshBasicMaterial({
    color: HIGHLIGHT_COLOR,
    transparent: true,
    opacity: 0.45,
    depthTest: false,
    depthWrite: false,
  });
}

/** The ids in one set and not the other. */
function changedIds(before: ReadonlySet<string>, after: ReadonlySet<string>): string[] {
  const changed: string[] = [];
  for (const id of before) if (!after.has(id)) changed.push(id);
  for (const id of after) if (!before.has(id)) changed.push(id);
  return changed;
}

/** The see-through stand-in for every part that is not selected while x-ray is on. */
function ghostMaterial(): MeshStandardMaterial {
  return new MeshStandardMaterial({
    color: 0xb8c4d8,
    transparent: true,
    opacity: 0.12,
    depthWrite: false,
    roughness: 0.6,
  });
}

/** State applied on top of the parts' materials; {@link PartStyles.apply} runs after every change or reload. */
export class PartStyles {
  readonly overlays = new Group();
  private readonly highlight = highlightMaterial();
  private readonly ghost = ghostMaterial();
  private hidden = new Set<string>();
  private selection = new Set<string>();
  private xray = false;
  /**
   * Each highlighted part's overlays: meshes hung under its meshes (so they follow animation and skinning) and its
   * box.
   */
  private attached = new Map<string, { overlays: Mesh[]; helper: Box3Helper }>();

  /** Parts not to draw; returns those that were drawn and are not, or the other way, for {@link PartStyles.applyTo}. */
  setHidden(hidden: ReadonlySet<string>): string[] {
    const changed = changedIds(this.hidden, hidden);
    this.hidden = new Set(hidden);
    return changed;
  }

  /** Parts to highlight; returns those whose highlight comes or goes, for {@link PartStyles.applyTo}. */
  setSelection(selection: ReadonlySet<string>): string[] {
    const changed = changedIds(this.selection, selection);
    this.selection = new Set(selection);
    return changed;
  }

  /** Whether parts outside the selection are ghosted. */
  setXray(on: boolean): void {
    this.xray = on;
  }

  /**
   * Shows or hides each part's meshes, swaps in the ghost material for unselected parts under x-ray (with nothing
   * selected nothing is ghosted), and rebuilds the highlight overlays and boxes of the visible selected parts.
   * `material` gives each mesh the material it would have without these styles.
   */
  apply(parts: Map<string, Mesh[]>, material: (mesh: Mesh) => ThreeMaterial | ThreeMaterial[]): void {
    this.clearOverlays();
    for (const [groupId, meshes] of parts) this.stylePart(groupId, meshes, material);
  }

  /**
   * Styles only the parts `groupIds` names (those whose selection or visibility just changed), so a click on a
   * model of 100,000 parts touches a few meshes, not all. Whether x-ray ghosts anything at all depends on the
   * whole selection: {@link PartStyles.ghostingChanges} tells when every part must be styled instead.
   */
  applyTo(
    parts: Map<string, Mesh[]>,
    groupIds: Iterable<string>,
    material: (mesh: Mesh) => ThreeMaterial | ThreeMaterial[],
  ): void {
    for (const groupId of groupIds) {
      this.dropOverlays(groupId);
      const meshes = parts.get(groupId);
      if (meshes) this.stylePart(groupId, meshes, material);
    }
  }

  /** Whether a new selection turns x-ray's ghosting on or off (it ghosts nothing while nothing is selected). */
  ghostingChanges(selection: ReadonlySet<string>): boolean {
    return this.xray && this.selection.size > 0 !== selection.size > 0;
  }

  private stylePart(
    groupId: string,
    meshes: Mesh[],
    material: (mesh: Mesh) => ThreeMaterial | ThreeMaterial[],
  ): void {
    const ghosting = this.xray && this.selection.size > 0;
    const visible = !this.hidden.has(groupId);
    const selected = this.selection.has(groupId);
    const overlays: Mesh[] = [];
    const box = new Box3();
    for (const mesh of meshes) {
      mesh.visible = visible;
      mesh.material = ghosting && !selected ? this.ghost : material(mesh);
      if (!visible || !selected) continue;
      const overlay = this.overlayFor(mesh);
      mesh.add(overlay);
      overlays.push(overlay);
      box.expandByObject(mesh);
    }
    if (box.isEmpty()) return;
    const helper = new Box3Helper(box, HIGHLIGHT_COLOR);
    (helper.material as LineBasicMaterial).depthTest = false;
    helper.renderOrder = 1000;
    this.overlays.add(helper);
    this.attached.set(groupId, { overlays, helper });
  }

  /** True for a mesh drawn as a ghost, which clicks and measurements pass through. */
  isGhost(object: Object3D): boolean {
    return (object as Mesh).material === this.ghost;
  }

  /** Removes the overlays and frees the shared materials. */
  dispose(): void {
    this.clearOverlays();
    this.highlight.dispose();
    this.ghost.dispose();
  }

  private overlayFor(mesh: Mesh): Mesh {
    // A skinned part needs a skinned overlay bound to the same skeleton, or the tint would stay in the bind pose.
    const overlay =
      mesh instanceof SkinnedMesh
        ? new SkinnedMesh(mesh.geometry, this.highlight)
        : new Mesh(mesh.geometry, this.highlight);
    if (overlay instanceof SkinnedMesh && mesh instanceof SkinnedMesh)
      overlay.bind(mesh.skeleton, mesh.bindMatrix);
    overlay.renderOrder = 999;
    // Overlays must never be what a click or a measurement hits.
    overlay.raycast = () => undefined;
    return overlay;
  }

  private dropOverlays(groupId: string): void {
    const attached = this.attached.get(groupId);
    if (!attached) return;
    for (const overlay of attached.overlays) overlay.removeFromParent();
    attached.helper.removeFromParent();
    attached.helper.dispose();
    this.attached.delete(groupId);
  }

  private clearOverlays(): void {
    for (const groupId of [...this.attached.keys()]) this.dropOverlays(groupId);
  }
}
