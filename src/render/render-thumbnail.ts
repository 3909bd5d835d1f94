// sharp is imported here rather than passed in: options must survive the copy into a worker thread.
import sharp from 'sharp';
import { DEFAULT_FOV_Y, DEFAULT_VIEW } from './camera.ts';
import { fitCamera } from './fit-camera.ts';
import type { FramedCamera, ViewAngles } from './camera.ts';
import { srgbToLinear } from '../gltf/color-space.ts';
import { encodeSrgb } from './downsample.ts';
import { ALPHA_BLEND } from './draw-primitive.ts';
import { drawScene } from './raster/draw-scene.ts';
import { encodePng } from './encode-png.ts';
import { flattenScene } from './scene/flatten-scene.ts';
import type { MaterialOverride } from './scene/flatten-scene.ts';
import { createFramebuffer } from './raster/framebuffer.ts';
import { readGlb } from './scene/read-glb.ts';
import { splitFeatureParts } from './scene/split-feature-parts.ts';

/** A colour bound to a part, as `materialOverrides` takes it. */
export type { MaterialOverride } from './scene/flatten-scene.ts';

/** Name used to prefix errors and logs. */
export const NAME = 'render-thumbnail';

/** How a thumbnail is rendered. */
export interface RenderOptions {
  /** Output width in pixels. */
  width: number;
  /** Output height in pixels. */
  height: number;
  /**
   * Samples per pixel along each axis, averaged down with a box filter (3 → 9 samples per pixel); `auto` takes 2,
   * or 4 for a scene of at least as many triangles as the image has pixels ({@link autoSupersample}).
   */
  supersample: number | 'auto';
  /** Where the camera looks from; the model is framed to fill the image from there (fit-camera.ts). */
  view: ViewAngles;
  /** Vertical field of view in degrees. */
  fovY: number;
  /** Background as sRGB RGBA in 0–1; transparent by default so the catalog page shows through. */
  background: [number, number, number, number];
  /** Colours bound to parts, keyed by the `group_id` in each mesh node's `extras`; they replace the part's own material. */
  materialOverrides: ReadonlyMap<string, MaterialOverride>;
  /** Use this camera (e.g. another render's `camera`) instead of framing the scene: renders of different levels then line up. */
  camera?: FramedCamera;
  /** Skip back faces of single-sided materials as glTF asks; off by default so meshes with flipped winding show no holes. */
  cullBackFaces: boolean;
}

/** Defaults: a 512² transparent PNG of the three-quarter view, supersampled 2×2 (4×4 for sub-pixel triangles). */
export const RENDER_DEFAULTS: Readonly<RenderOptions> = {
  width: 512,
  height: 512,
  supersample: 'auto',
  view: DEFAULT_VIEW,
  fovY: DEFAULT_FOV_Y,
  background: [0, 0, 0, 0],
  materialOverrides: new Map(),
  cullBackFaces: false,
};

/** Largest supersampled side accepted, to bound memory (16 bytes of colour plus 12 of visibility per sample). */
const MAX_SAMPLES_SIDE = 8192;

/** What a render saw, alongside the PNG. */
export interface RenderResult {
  /** PNG bytes. */
  png: Buffer;
  /** The camera used, as {@link fitCamera} built it (or the one given). */
  camera: FramedCamera;
  /** Samples per pixel along each axis it was drawn with. */
  supersample: number;
  /** Triangles drawn. */
  triangleCount: number;
  /** Recoverable oddities of the file, for the caller's log (prefix them with {@link NAME}). */
  warnings: string[];
}

/**
 * Renders a GLB to a PNG thumbnail on the CPU: auto-framed three-quarter view, lit, textured,
 * with bound materials applied. Rejects with an Error for unreadable files and for scenes with
 * nothing to draw.
 *
 * @example
 * const png = await renderThumbnail(glb, { materialOverrides: new Map([['m:0', { color: [1, 0, 0], alpha: 1 }]]) });
 */
export async function renderThumbnail(
  glb: Uint8Array,
  options: Partial<RenderOptions> = {},
): Promise<Buffer> {
  return (await renderThumbnailDetailed(glb, options)).png;
}

/** {@link renderThumbnail}, also returning the camera, triangle count and warnings (for logs, tests and benchmarks). */
export async function renderThumbnailDetailed(
  glb: Uint8Array,
  options: Partial<RenderOptions> = {},
): Promise<RenderResult> {
  const o: RenderOptions = { ...RENDER_DEFAULTS, ...options };
  checkSize('width', o.width, 1, 4096);
  checkSize('height', o.height, 1, 4096);
  if (o.supersample !== 'auto') {
    checkSize('supersample', o.supersample, 1, 8);
    const [sw, sh] = [o.width * o.supersample, o.height * o.supersample];
    if (sw > MAX_SAMPLES_SIDE || sh > MAX_SAMPLES_SIDE) {
      throw new RangeError(
        `${NAME}: ${sw}×${sh} samples exceed the ${MAX_SAMPLES_SIDE} limit; lower supersample`,
      );
    }
  }

  const document = await readGlb(glb);
  // Bound colours are keyed by the part nodes' group ids, which a batched level carries as feature ids: only the
  // bound parts become nodes. The others draw the same triangles from the batched primitives, where a node per part
  // would cost a model of 100,000 parts seconds of glTF-Transform graph for the same pixels.
  if (o.materialOverrides.size > 0) splitFeatureParts(document, new Set(o.materialOverrides.keys()));
  const scene = await flattenScene(document, { materialOverrides: o.materialOverrides, sharp });
  if (!scene.bounds || scene.triangleCount + scene.pointCount === 0) {
    throw new Error(`${NAME}: the scene has no triangles or points to draw`);
  }
  const camera =
    o.camera ??
    fitCamera(
      scene.primitives.map((p, i) => ({ positions: p.positions, used: scene.usedVertices[i] })),
      scene.bounds,
      o.width / o.height,
      o.view,
      o.fovY,
    );

  const [r, g, b, a] = o.background;
  const alpha = clamp01(a);
  const background = [
    srgbToLinear(clamp01(r)) * alpha,
    srgbToLinear(clamp01(g)) * alpha,
    srgbToLinear(clamp01(b)) * alpha,
    alpha,
  ];
  const supersample =
    o.supersample === 'auto' ? autoSupersample(scene.triangleCount, o.width, o.height) : o.supersample;
  const blends = scene.primitives.some((p) => p.alphaMode === ALPHA_BLEND);
  const fb = createFramebuffer(o.width * supersample, o.height * supersample, background, blends);
  const pixels = drawScene(fb, scene.primitives, camera, supersample, o.cullBackFaces);
  const png = await encodePng(encodeSrgb(pixels), o.width, o.height, sharp);
  return { png, camera, supersample, triangleCount: scene.triangleCount, warnings: scene.warnings };
}

/**
 * The supersampling `auto` takes: 2×2, or 4×4 when the scene has at least as many triangles as the image has
 * pixels. Triangles smaller than a pixel on average (100,000 boxes on a grid, a facade's mullions seen whole) beat
 * against 2×2 samples in moiré rings, which 4×4 averages out; a building of 35,000 triangles looks the same at 2×2
 * and renders in a third of the time. Never more samples than {@link MAX_SAMPLES_SIDE} allows.
 */
export function autoSupersample(triangles: number, width: number, height: number): number {
  const wanted = triangles >= width * height ? 4 : 2;
  return Math.max(1, Math.min(wanted, Math.floor(MAX_SAMPLES_SIDE / Math.max(width, height))));
}

function checkSize(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${NAME}: ${name} must be an integer between ${min} and ${max}`);
  }
}

function clamp01(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
}
