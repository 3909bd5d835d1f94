/**
 * Parallel projection for the view: an orthographic camera that copies the perspective camera's place and
 * orientation before each frame and spans, at the orbit target, what the perspective camera sees there. The orbit
 * controls keep driving the perspective camera, so orbiting, zooming (dollying shrinks the span), saved views and
 * framing all work unchanged in either projection.
 */
import { OrthographicCamera } from 'three';
import type { PerspectiveCamera, Vector3 } from 'three';

/** The orthographic twin of a perspective camera. */
export class OrthographicView {
  /** Whether frames are drawn with it. */
  enabled = false;
  private readonly camera = new OrthographicCamera();

  /** The orthographic camera matched to `perspective` looking at `target`, ready to draw with. */
  follow(perspective: PerspectiveCamera, target: Vector3): OrthographicCamera {
    const { camera } = this;
    const distance = Math.max(perspective.position.distanceTo(target), 1e-6);
    const halfHeight = distance * Math.tan((perspective.fov * Math.PI) / 360);
    const halfWidth = halfHeight * perspective.aspect;
    camera.left = -halfWidth;
    camera.right = halfWidth;
    camera.top = halfHeight;
    camera.bottom = -halfHeight;
    camera.near = perspective.near;
    camera.far = perspective.far;
    camera.position.copy(perspective.position);
    camera.quaternion.copy(perspective.quaternion);
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld();
    return camera;
  }
}
