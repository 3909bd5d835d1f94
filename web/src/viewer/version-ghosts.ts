/**
 * The removed parts of a compared version, drawn as red ghosts beside the newer version: the older version's GLB
 * is loaded, every part still present is dropped from it, and what is left is drawn see-through in the removed
 * colour. The ghosts take no clicks (they hang under the view's `extras`, which picking never reaches).
 */
import { Color, MeshStandardMaterial, SRGBColorSpace } from 'three';
import type { Mesh, Object3D, Texture } from 'three';
import { DIFF_COLORS } from './diff-colors.ts';
import { disposeObject } from './dispose-object.ts';
import { collectPartMeshes } from './part-meshes.ts';
import { createPartsLoader, splitByPart } from './tile-parts.ts';

/** The see-through red every removed part is drawn in. */
function ghostMaterial(): MeshStandardMaterial {
  const { r, g, b, alpha } = DIFF_COLORS.removed;
  const color = new Color().setRGB(r / 255, g / 255, b / 255, SRGBColorSpace);
  return new MeshStandardMaterial({
    name: 'Compare: removed',
    color,
    emissive: color.clone().multiplyScalar(0.35),
    transparent: true,
    opacity: alpha / 255,
    depthWrite: false,
    roughness: 0.8,
  });
}

/** Frees a loaded mesh's own materials and their textures (its geometry may still be drawn). */
function freeMaterials(mesh: Mesh): void {
  for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) {
    for (const value of Object.values(material)) {
      if ((value as Texture | null)?.isTexture) (value as Texture).dispose();
    }
    material.dispose();
  }
}

/** Ghosts of removed parts under `parent`; `changed` asks the view for a frame. */
export class VersionGhosts {
  private readonly loader = createPartsLoader();
  private readonly material = ghostMaterial();
  private root: Object3D | null = null;
  private serial = 0;

  constructor(
    private readonly parent: Object3D,
    private readonly changed: () => void,
  ) {}

  /**
   * Shows the parts `removed` of the GLB at `url` (replacing earlier ghosts); resolves with how many meshes are
   * drawn. Nothing is fetched when no part was removed.
   */
  async show(url: string, removed: ReadonlySet<string>): Promise<number> {
    this.clear();
    const mine = this.serial;
    if (removed.size === 0) return 0;
    const gltf = await this.loader.loadAsync(url);
    if (mine !== this.serial) {
      disposeObject(gltf.scene);
      return 0;
    }
    let drawn = 0;
    splitByPart(gltf.scene);
    for (const [groupId, meshes] of collectPartMeshes(gltf.scene)) {
      for (const mesh of meshes) {
        freeMaterials(mesh);
        mesh.raycast = () => undefined;
        if (removed.has(groupId)) {
          mesh.material = this.material;
          drawn += 1;
        } else {
          // Off every layer rather than out of the tree: a removed part may hang under a part still present.
          mesh.geometry.dispose();
          mesh.layers.disableAll();
        }
      }
    }
    this.root = gltf.scene;
    this.parent.add(this.root);
    this.changed();
    return drawn;
  }

  /** Removes the ghosts (a pending {@link VersionGhosts.show} is abandoned too). */
  clear(): void {
    this.serial += 1;
    if (!this.root) return;
    this.root.removeFromParent();
    // The shared ghost material outlives them; only their geometry goes.
    this.root.traverse((object) => (object as Mesh).geometry?.dispose());
    this.root = null;
    this.changed();
  }

  /** Removes the ghosts and frees the material. */
  dispose(): void {
    this.clear();
    this.material.dispose();
  }
}
