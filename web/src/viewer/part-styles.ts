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
  /** Highlight meshes hung under the selected parts' meshes, so they follow animation and skinning. */
  private attached: Mesh[] = [];

  /** Parts not to draw. */
  setHidden(hidden: Set<string>): void {
    this.hidden = new Set(hidden);
  }

  /** Parts to highlight. */
  setSelection(selection: Set<string>): void {
    this.selection = new Set(selection);
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
    const ghosting = this.xray && this.selection.size > 0;
    for (const [groupId, meshes] of parts) {
      const visible = !this.hidden.has(groupId);
      const selected = this.selection.has(groupId);
      const box = new Box3();
      for (const mesh of meshes) {
        mesh.visible = visible;
        mesh.material = ghosting && !selected ? this.ghost : material(mesh);
        if (!visible || !selected) continue;
        mesh.add(this.overlayFor(mesh));
        box.expandByObject(mesh);
      }
      if (!box.isEmpty()) {
        const helper = new Box3Helper(box, HIGHLIGHT_COLOR);
        (helper.material as LineBasicMaterial).depthTest = false;
        helper.renderOrder = 1000;
        this.overlays.add(helper);
      }
    }
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
    this.attached.push(overlay);
    return overlay;
  }

  private clearOverlays(): void {
    for (const overlay of this.attached) overlay.removeFromParent();
    this.attached = [];
    for (const helper of this.overlays.children) (helper as Box3Helper).dispose();
    this.overlays.clear();
  }
}
