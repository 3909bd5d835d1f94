/** Freeing what a loaded model holds on the GPU. */
import type { Mesh, Object3D, Points, Texture } from 'three';

/** Releases geometries, materials and textures of a subtree. */
export function disposeObject(root: Object3D): void {
  root.traverse((object) => {
    const mesh = object as Mesh;
    // Point clouds hold geometry and materials just as meshes do.
    if (!mesh.isMesh && !(object as Points).isPoints) return;
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
