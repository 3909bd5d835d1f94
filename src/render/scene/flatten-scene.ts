import { MathUtils } from '@gltf-transform/core';
import type {
  Document,
  Material,
  Node,
  Primitive,
  Skin,
  Texture,
  TextureInfo,
  mat4,
  vec3,
  vec4,
} from '@gltf-transform/core';
import type { InstancedMesh, Transform } from '@gltf-transform/extensions';
import type sharpModule from 'sharp';
import type { Bounds } from '../../pipeline/types.ts';
import { applySkin } from './apply-skin.ts';
import { srgbToLinear } from '../../gltf/color-space.ts';
import { decodeTexture } from './decode-texture.ts';
import type { DecodedTexture } from './decode-texture.ts';
import { ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE } from '../draw-primitive.ts';
import type { DrawPrimitive } from '../draw-primitive.ts';
import { readFloats, triangleList } from './read-attribute.ts';
import { WRAP_REPEAT } from '../raster/sample-texture.ts';
import { multiply } from '../../gltf/multiply-matrices.ts';
import { bakeNormals, determinant3, isIdentity, transformPositions } from './transform-vertices.ts';
import { growBounds } from './scene-bounds.ts';

/** A colour bound to a part through the material service: sRGB 0–1 channels and alpha 0–1. */
export interface MaterialOverride {
  color: [number, number, number];
  alpha: number;
}

/** Everything the rasterizer draws, in world space. */
export interface FlatScene {
  primitives: DrawPrimitive[];
  /** World-space box of every finite vertex a triangle uses, or `null` when there is none. */
  bounds: Bounds | null;
  /** Per primitive, which of its vertices a triangle or point uses (1) or not (0): what a frame must hold. */
  usedVertices: Uint8Array[];
  /** Triangles across all primitives. */
  triangleCount: number;
  /** Points across all point primitives. */
  pointCount: number;
  /** Things drawn differently from the file (undecodable textures, skipped points and lines). */
  warnings: string[];
}

/** Options of {@link flattenScene}. */
export interface FlattenOptions {
  /** Colours that replace the material of nodes whose `extras.group_id` they are keyed by. */
  materialOverrides: ReadonlyMap<string, MaterialOverride>;
  /** sharp, to decode base-colour textures. */
  sharp: typeof sharpModule;
}

interface PendingPrimitive {
  node: Node;
  primitive: Primitive;
  world: mat4;
  skin: Skin | null;
  override: MaterialOverride | undefined;
}

/** glTF draw modes drawn: points, and the three made of triangles; lines do not belong in a thumbnail. */
const DRAWN_MODES = new Set([0, 4, 5, 6]);
const POINTS = 0;

/**
 * Walks the default scene (or the first one), bakes every triangle primitive into world space
 * (once per instance under EXT_mesh_gpu_instancing, posed by its skin's joints when skinned) and
 * decodes each texture once, so drawing needs no glTF-Transform objects.
 */
export async function flattenScene(document: Document, options: FlattenOptions): Promise<FlatScene> {
  const root = document.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const pending: PendingPrimitive[] = [];
  const warnings: string[] = [];
  let skipped = 0;
  scene?.traverse((node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    const groupId = node.getExtras()?.group_id;
    const override = typeof groupId === 'string' ? options.materialOverrides.get(groupId) : undefined;
    const skin = node.getSkin();
    const worlds = skin ? [node.getWorldMatrix()] : instanceMatrices(node);
    for (const primitive of mesh.listPrimitives()) {
      if (!DRAWN_MODES.has(primitive.getMode()) || !primitive.getAttribute('POSITION')) {
        skipped++;
        continue;
      }
      for (const world of worlds) pending.push({ node, primitive, world, skin, override });
    }
  });

  const textures = new Map<Texture, Promise<DecodedTexture | null>>();
  for (const { primitive, override } of pending) {
    const material = override ? null : primitive.getMaterial();
    for (const texture of [material?.getBaseColorTexture(), material?.getEmissiveTexture()]) {
      if (texture && !textures.has(texture)) textures.set(texture, decodeTexture(texture, options.sharp));
    }
  }
  if (skipped > 0) warnings.push(`${skipped} primitive(s) without triangles or points (lines) not drawn`);
  const decoded = new Map<Texture, DecodedTexture | null>();
  for (const [texture, promise] of textures) {
    const image = await promise;
    decoded.set(texture, image);
    if (!image) {
      const name = texture.getName() || texture.getURI() || 'unnamed';
      warnings.push(
        `texture "${name}" (${texture.getMimeType() || 'unknown type'}) could not be decoded; drawn without it`,
      );
    }
  }

  const primitives: DrawPrimitive[] = [];
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  let triangleCount = 0;
  let pointCount = 0;
  const usedVertices: Uint8Array[] = [];
  for (const item of pending) {
    const baked = bakePrimitive(item, decoded, min, max);
    if (!baked) continue;
    primitives.push(baked.draw);
    usedVertices.push(baked.used);
    if (baked.draw.points) pointCount += baked.used.reduce((sum, used) => sum + used, 0);
    else triangleCount += baked.draw.indices.length / 3;
  }
  const bounds = min[0] <= max[0] ? { min, max } : null;
  return { primitives, bounds, usedVertices, triangleCount, pointCount, warnings };
}

function bakePrimitive(
  { primitive, world, skin, override }: PendingPrimitive,
  textures: ReadonlyMap<Texture, DecodedTexture | null>,
  min: [number, number, number],
  max: [number, number, number],
): { draw: DrawPrimitive; used: Uint8Array } | null {
  const positionAccessor = primitive.getAttribute('POSITION')!;
  const vertexCount = positionAccessor.getCount();
  const skinned = skin ? applySkin(primitive, skin) : null;
  const m = world;
  const mirrored = skinned ? skinned.mirrored : determinant3(m) < 0;
  const points = primitive.getMode() === POINTS;
  const indices = points
    ? new Uint32Array(0)
    : triangleList(primitive.getIndices(), vertexCount, primitive.getMode(), mirrored);
  if (indices.length === 0 && !points) return null;

  // The common identity transform needs no copy: drawing never writes to these arrays.
  const identity = isIdentity(m);
  const local = skinned ? null : readFloats(positionAccessor);
  const positions = skinned ? skinned.positions : identity ? local! : transformPositions(local!, m);
  const used = new Uint8Array(vertexCount);
  for (let i = 0; i < indices.length; i++) used[indices[i]] = 1;
  if (points) {
    const pointIndices = primitive.getIndices()?.getArray();
    if (pointIndices) {
      for (const index of pointIndices) if (index < vertexCount) used[index] = 1;
    } else {
      used.fill(1);
    }
  }
  const center = growBounds(positions, used, min, max);
  const normalAccessor = primitive.getAttribute('NORMAL');
  const normals = skinned
    ? skinned.normals
    : normalAccessor && normalAccessor.getCount() === vertexCount
      ? identity
        ? readFloats(normalAccessor)
        : bakeNormals(readFloats(normalAccessor), m)
      : null;

  const material = primitive.getMaterial();
  const draw: DrawPrimitive = {
    positions,
    normals,
    uvs: null,
    colors: null,
    indices,
    baseColor: new Float32Array(material ? material.getBaseColorFactor() : [1, 1, 1, 1]),
    emissive: new Float32Array(material ? material.getEmissiveFactor() : [0, 0, 0]),
    texture: null,
    wrapS: WRAP_REPEAT,
    wrapT: WRAP_REPEAT,
    emissiveUvs: null,
    emissiveTexture: null,
    emissiveWrapS: WRAP_REPEAT,
    emissiveWrapT: WRAP_REPEAT,
    alphaMode: alphaMode(material),
    alphaCutoff: material ? material.getAlphaCutoff() : 0.5,
    doubleSided: material ? material.getDoubleSided() : false,
    unlit: material ? material.getExtension('KHR_materials_unlit') !== null : false,
    shininess: 0,
    specular: 0,
    center,
    points,
  };
  const roughness = material ? material.getRoughnessFactor() : 1;
  draw.shininess = 4 + (1 - roughness) * (1 - roughness) * 124;
  draw.specular = 0.04 + 0.26 * (1 - roughness);

  if (override) {
    // A bound material replaces colour, texture and vertex colours; its alpha decides the blending.
    const [r, g, b] = override.color;
    draw.baseColor = new Float32Array([
      srgbToLinear(clamp01(r)),
      srgbToLinear(clamp01(g)),
      srgbToLinear(clamp01(b)),
      clamp01(override.alpha),
    ]);
    draw.emissive = new Float32Array(3);
    draw.alphaMode = override.alpha < 1 ? ALPHA_BLEND : ALPHA_OPAQUE;
    draw.unlit = false;
    return { draw, used };
  }

  const colorAccessor = primitive.getAttribute('COLOR_0');
  if (colorAccessor && colorAccessor.getCount() === vertexCount)
    draw.colors = bakeColors(colorAccessor.getElementSize(), readFloats(colorAccessor), vertexCount);

  const base = bakeTexture(
    primitive,
    material?.getBaseColorTextureInfo(),
    material?.getBaseColorTexture(),
    textures,
  );
  if (base) {
    draw.uvs = base.uvs;
    draw.texture = base.texture;
    draw.wrapS = base.wrapS;
    draw.wrapT = base.wrapT;
  }
  const emissive = bakeTexture(
    primitive,
    material?.getEmissiveTextureInfo(),
    material?.getEmissiveTexture(),
    textures,
  );
  if (emissive) {
    draw.emissiveUvs = emissive.uvs;
    draw.emissiveTexture = emissive.texture;
    draw.emissiveWrapS = emissive.wrapS;
    draw.emissiveWrapT = emissive.wrapT;
  } else if (material?.getEmissiveTexture()) {
    // The factor only scales a texture we cannot show; alone it would paint the part flat.
    draw.emissive = new Float32Array(3);
  }
  return { draw, used };
}

interface BakedTexture {
  uvs: Float32Array;
  texture: DecodedTexture;
  wrapS: number;
  wrapT: number;
}

/** Resolves one texture slot to its decoded image and the uvs of the set it names (after KHR_texture_transform). */
function bakeTexture(
  primitive: Primitive,
  info: TextureInfo | null | undefined,
  texture: Texture | null | undefined,
  textures: ReadonlyMap<Texture, DecodedTexture | null>,
): BakedTexture | null {
  const decoded = texture ? textures.get(texture) : null;
  if (!info || !decoded) return null;
  const transform = info.getExtension<Transform>('KHR_texture_transform');
  const set = transform?.getTexCoord() ?? info.getTexCoord();
  const accessor = primitive.getAttribute(`TEXCOORD_${set}`);
  const vertexCount = primitive.getAttribute('POSITION')!.getCount();
  if (!accessor || accessor.getCount() !== vertexCount || accessor.getElementSize() !== 2) return null;
  return {
    uvs: bakeUvs(readFloats(accessor), transform),
    texture: decoded,
    wrapS: info.getWrapS(),
    wrapT: info.getWrapT(),
  };
}

/** The node's world matrix, or one per instance of EXT_mesh_gpu_instancing (instance transform first). */
function instanceMatrices(node: Node): mat4[] {
  const world = node.getWorldMatrix();
  const instancing = node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing');
  if (!instancing) return [world];
  const translation = instancing.getAttribute('TRANSLATION');
  const rotation = instancing.getAttribute('ROTATION');
  const scale = instancing.getAttribute('SCALE');
  const count = (translation ?? rotation ?? scale)?.getCount() ?? 0;
  if (count === 0) return [world];
  const t: vec3 = [0, 0, 0];
  const r: vec4 = [0, 0, 0, 1];
  const sc: vec3 = [1, 1, 1];
  const local = [...world] as mat4;
  const out: mat4[] = [];
  for (let i = 0; i < count; i++) {
    if (translation) translation.getElement(i, t);
    if (rotation) rotation.getElement(i, r);
    if (scale) scale.getElement(i, sc);
    out.push(multiply(world, MathUtils.compose(t, r, sc, local)));
  }
  return out;
}

function alphaMode(material: Material | null): number {
  const mode = material?.getAlphaMode();
  return mode === 'BLEND' ? ALPHA_BLEND : mode === 'MASK' ? ALPHA_MASK : ALPHA_OPAQUE;
}

function clamp01(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 1;
}

function bakeColors(size: number, source: Float32Array, vertexCount: number): Float32Array {
  const out = new Float32Array(vertexCount * 4);
  for (let v = 0; v < vertexCount; v++) {
    out[v * 4] = source[v * size];
    out[v * 4 + 1] = source[v * size + 1];
    out[v * 4 + 2] = source[v * size + 2];
    out[v * 4 + 3] = size === 4 ? source[v * size + 3] : 1;
  }
  return out;
}

/** Applies KHR_texture_transform (offset · rotation · scale) once per vertex instead of once per pixel. */
function bakeUvs(source: Float32Array, transform: Transform | null | undefined): Float32Array {
  if (!transform) return source;
  const [ox, oy] = transform.getOffset();
  const [sx, sy] = transform.getScale();
  const r = transform.getRotation();
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const out = new Float32Array(source.length);
  for (let i = 0; i < source.length; i += 2) {
    const u = source[i];
    const v = source[i + 1];
    out[i] = cos * sx * u + sin * sy * v + ox;
    out[i + 1] = -sin * sx * u + cos * sy * v + oy;
  }
  return out;
}
