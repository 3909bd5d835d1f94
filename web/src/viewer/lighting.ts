/** Physically based lighting of the view: an image-based room environment, one soft key light and a filmic tone map. */
import {
  ACESFilmicToneMapping,
  DirectionalLight,
  HalfFloatType,
  LinearMipmapLinearFilter,
  LinearSRGBColorSpace,
  PMREMGenerator,
  SRGBColorSpace,
  WebGLCubeRenderTarget,
} from 'three';
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
/** Edge of the prefiltered room's cube, PMREMGenerator's default: the placeholder must match it texel for texel. */
const ENVIRONMENT_SIZE = 256;
/** PMREMGenerator's smallest prefiltered level is 2^3 texels across. */
const SMALLEST_LOD_LOG2 = 3;

/**
 * A black stand-in for the prefiltered room, shaped as PMREMGenerator shapes it (size, mip levels, texel type), so
 * that every program compiled before the room is ready already samples an environment and the room's arrival only
 * swaps a texture: without it, each material recompiles its program then, seconds of frozen frames on a software
 * renderer. Sampling it adds nothing, so it lights exactly as no environment does.
 */
function placeholderEnvironment(): WebGLCubeRenderTarget {
  const target = new WebGLCubeRenderTarget(ENVIRONMENT_SIZE, {
    minFilter: LinearMipmapLinearFilter,
    generateMipmaps: false,
    type: HalfFloatType,
    colorSpace: LinearSRGBColorSpace,
    depthBuffer: false,
  });
  for (let lod = 0; lod <= Math.log2(ENVIRONMENT_SIZE) - SMALLEST_LOD_LOG2; lod++) {
    const edge = ENVIRONMENT_SIZE >> lod;
    // Only the levels' sizes are read (to allocate them); three's types want whole images here.
    (target.texture.mipmaps as { width: number; height: number }[]).push({ width: edge, height: edge });
  }
  target.texture.isPMREMTexture = true;
  return target;
}

/** The view's lights; the room environment comes once asked for (see {@link ViewLighting.addEnvironment}). */
export interface ViewLighting {
  /**
   * Lights the scene from the prefiltered room, once. Prefiltering is a few milliseconds on a graphics card but
   * seconds on a software renderer, during which the page draws no frame: the view asks for it after its first
   * frame of a model, so that frame is never held back by it. True when it was made by this call.
   */
  addEnvironment(): boolean;
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
  let placeholder: WebGLCubeRenderTarget | null = placeholderEnvironment();
  // Allocated now, every mip level, as a prefiltered room is: sampled before any render to it, it reads black.
  renderer.initRenderTarget(placeholder);
  scene.environment = placeholder.texture;
  scene.environmentIntensity = 0.8;
  return {
    addEnvironment() {
      if (environment) return false;
      const pmrem = new PMREMGenerator(renderer);
      const room = new RoomEnvironment();
      environment = pmrem.fromScene(room, 0.04, 0.1, 100, { size: ENVIRONMENT_SIZE }).texture;
      room.dispose();
      pmrem.dispose();
      scene.environment = environment;
      placeholder?.dispose();
      placeholder = null;
      return true;
    },
    dispose() {
      camera.remove(key, key.target);
      key.dispose();
      scene.environment = null;
      environment?.dispose();
      placeholder?.dispose();
    },
  };
}
