/**
 * Feature edges drawn over the shading: for each part mesh, the edges where its faces meet at more than
 * {@link EDGE_THRESHOLD_DEG}, built the first time edges are shown on that mesh and kept as its child, so they
 * follow it when it moves (explode), hides or is replaced with its tile.
 */
import { EdgesGeometry, LineBasicMaterial, LineSegments } from 'three';
import type { Mesh } from 'three';

/** Faces meeting at a sharper angle than this, in degrees, show an edge; smooth curvature shows none. */
export const EDGE_THRESHOLD_DEG = 30;
const EDGE_COLOR = 0x11141a;

/**
 * The lines' material. An edge lies exactly on the faces it bounds, and a line's depth is interpolated otherwise
 * than a triangle's, so drawn as is it would flicker in and out of the faces (dashes); each line is pulled a hair
 * towards the eye in clip space, which polygon offset (triangles only) cannot do.
 */
function edgeMaterial(): LineBasicMaterial {
  const material = new LineBasicMaterial({ color: EDGE_COLOR });
  material.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader.replace(
      '#include <project_vertex>',
      '#include <project_vertex>\n\tgl_Position.z -= 0.0006 * gl_Position.w;',
    );
  };
  return material;
}

/** The edges of the parts of one view, switched on and off together. */
export class FeatureEdges {
  private readonly material = edgeMaterial();
  private readonly built = new WeakMap<Mesh, LineSegments>();
  private shown = false;

  /** Whether the edges are shown. */
  get enabled(): boolean {
    return this.shown;
  }

  /** Shows or hides the edges of `parts`' meshes. */
  set(parts: ReadonlyMap<string, Mesh[]>, on: boolean): void {
    this.shown = on;
    this.update(parts);
  }

  /** Brings the meshes of `parts` (new ones after a level or tiles changed) in line with the switch. */
  update(parts: ReadonlyMap<string, Mesh[]>): void {
    for (const meshes of parts.values()) {
      for (const mesh of meshes) {
        const existing = this.built.get(mesh);
        if (existing) existing.visible = this.shown;
        else if (this.shown) this.build(mesh);
      }
    }
  }

  /** Frees the shared material (each mesh's edges go with its mesh). */
  dispose(): void {
    this.material.dispose();
  }

  private build(mesh: Mesh): void {
    if (!mesh.geometry?.getAttribute('position') || mesh.geometry.index?.count === 0) return;
    const lines = new LineSegments(new EdgesGeometry(mesh.geometry, EDGE_THRESHOLD_DEG), this.material);
    lines.name = 'feature-edges';
    // Edges are decoration: clicks pass through to the part, and the part's own box ignores them.
    lines.raycast = () => undefined;
    lines.userData.decoration = true;
    mesh.add(lines);
    this.built.set(mesh, lines);
  }
}
