/** Physically based lighting of the view: an image-based room environment, one soft key light and a filmic tone map. */
import { ACESFilmicToneMapping, DirectionalLight, PMREMGenerator, SRGBColorSpace } from 'three';
import type { PerspectiveCamera, Scene, Texture, WebGLRenderer } from 'three';
import { RoomEnvironment } from 'three/addons/environments/RoomEnvironment.js';

/**
 * Exposure of the tone map. With the room environment at full strength a white, rough surface facing the key
 * light lands just under 1.0 before tone mapping, so ACES rolls it off to a light grey instead of clipping it:
 * white CAD parts keep their shading.
 */
const EXPOSURE = 0.8;
/** The key light rides on the camera, so the side a person looks at always has some modelling. */
const KEY_INTENSITY = 1.2;

/** The view's lights; the room environment comes once asked for (see {@link ViewLighting.addEnvironmentSoon}). */
export interface ViewLighting {
  /**
   * Lights the scene from the prefiltered room, once, in a task of its own after this one, then calls `added`.
   * Prefiltering is a few milliseconds on a graphics card but seconds on a software renderer, during which the page
   * draws no frame: the view asks for it from its first frame of a model, and the task after that frame's lets the
   * frame reach the screen first (a frame shows only once its task ends). The materials' programs are compiled again
   * for the environment when next drawn.
   */
  addEnvironmentSoon(added: () => void): void;
  /** Removes the lights and frees the environment. */
  dispose(): void;
}

/** Sets tone mapping and sRGB output on `renderer` and puts the key light on `camera`. */
export function installLighting(
  renderer: WebGLRenderer,
  scene: Scene,
  camera: PerspectiveCamera,
): ViewLighting {
  renderer.outputColorSpace = SRGBColorSpace;
  renderer.toneMapping = ACESFilmicToneMapping;
  renderer.toneMappingExposure = EXPOSURE;

  // Up and to the left of the eye, like a studio key light; the target sits in front of the camera.
  const key = new DirectionalLight(0xffffff, KEY_INTENSITY);
  key.position.set(-0.5, 1, 0.6);
  key.target.position.set(0, 0, -1);
  camera.add(key, key.target);

  let environment: Texture | null = null;
  let queued: ReturnType<typeof setTimeout> | undefined;
  return {
    addEnvironmentSoon(added) {
      if (environment || queued !== undefined) return;
      queued = setTimeout(() => {
        const pmrem = new PMREMGenerator(renderer);
        const room = new RoomEnvironment();
        environment = pmrem.fromScene(room, 0.04).texture;
        room.dispose();
        pmrem.dispose();
        scene.environment = environment;
        scene.environmentIntensity = 0.8;
        added();
      });
    },
    dispose() {
      clearTimeout(queued);
      camera.remove(key, key.target);
      key.dispose();
      scene.environment = null;
      environment?.dispose();
    },
  };
}
