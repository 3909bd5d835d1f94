/**
 * Compiles, while a model's first content is still on its way, the shader program its meshes will most likely
 * draw with: glTF's metal-rough material (three's MeshStandardMaterial, one side, no textures) on a mesh with
 * normals, under the view's lights and tone map. A software renderer takes a large part of a second to compile it,
 * which the first frame would otherwise pay after the content arrived.
 */
import { BufferAttribute, BufferGeometry, Mesh, MeshStandardMaterial } from 'three';
import type { Camera, Scene, WebGLRenderer } from 'three';

/**
 * Compiles the program for `scene` (its lights and environment as they stand) off the frame path; resolves once it
 * is ready, having marked `vitrine:shaders-compiled` in the performance timeline. Never rejects: a failed warm-up
 * only means the first frame compiles as before.
 */
export async function warmModelShaders(renderer: WebGLRenderer, camera: Camera, scene: Scene): Promise<void> {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(new Float32Array(9), 3));
  geometry.setAttribute('normal', new BufferAttribute(new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1]), 3));
  const material = new MeshStandardMaterial();
  try {
    await renderer.compileAsync(new Mesh(geometry, material), camera, scene);
    performance.mark('vitrine:shaders-compiled');
  } catch {
    // Nothing to do: the frame compiles what it needs.
  } finally {
    geometry.dispose();
    // Disposing the material would release the program it holds; the tiles' own materials reuse it by its key.
  }
}
