// Tiny glTF documents built in code for the thumbnail tests, and a large generated mesh for the benchmark.
import { readFile } from 'node:fs/promises';
import { Document, Logger, NodeIO } from '@gltf-transform/core';
import type { Material, Node } from '@gltf-transform/core';
import { ALL_EXTENSIONS, KHRMaterialsUnlit } from '@gltf-transform/extensions';
import { MeshoptEncoder } from 'meshoptimizer';
import { compressLod } from '../../src/pipeline/lods/compress-lod.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';

/** The sample models, read-only. */
export const MODELS_DIR = SAMPLE_MODELS;

/** The glTF samples every thumbnail test and benchmark covers. */
export const GLTF_SAMPLES = [
  'glb/CesiumMilkTruck.glb',
  'glb/barrel.glb',
  'glb/MultiUVTest.glb',
  'gltf/BoxTextured/BoxTextured.gltf',
] as const;

const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);

/** Reads a sample as GLB bytes; separate-file glTF is packed into a GLB first. */
export async function readSampleGlb(sample: string): Promise<Uint8Array> {
  if (sample.endsWith('.glb')) return new Uint8Array(await readFile(MODELS_DIR + sample));
  return io.writeBinary(await io.read(MODELS_DIR + sample));
}

/** Packs a document as GLB with EXT_meshopt_compression and quantized attributes, as compressed LODs are written. */
export async function toMeshoptGlb(document: Document): Promise<Uint8Array> {
  // The served LOD 1 and 2 encoding: positions on a plain integer grid under a scaled node, octahedral normals.
  await compressLod(
    document,
    { encoder: MeshoptEncoder, consumeSource: true },
    { logger: new Logger(Logger.Verbosity.ERROR) },
  );
  const writer = new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.encoder': MeshoptEncoder });
  return writer.writeBinary(document);
}

/** Reads a sample into a document, to edit before writing it back with {@link toGlb}. */
export async function readSampleDocument(sample: string): Promise<Document> {
  return io.read(MODELS_DIR + sample);
}

/** Packs a document as GLB bytes. */
export function toGlb(document: Document): Promise<Uint8Array> {
  return io.writeBinary(document);
}

/** Options of {@link addQuad}. */
export interface QuadOptions {
  /** Centre of the quad; it spans ±`size` in x and y. */
  center?: [number, number, number];
  /** Half the side length. */
  size?: number;
  /** Which way the front face (counter-clockwise winding) points along z: +1 or −1. */
  facing?: 1 | -1;
  /** Material of the quad; none when omitted. */
  material?: Material;
  /** `COLOR_0` for all four vertices (RGBA, linear). */
  vertexColor?: [number, number, number, number];
  /** Leave out `NORMAL` so the renderer has to generate flat normals. */
  withoutNormals?: boolean;
  /** `extras.group_id` of the node. */
  groupId?: string;
}

/** Adds a node with a two-triangle quad in the z = centre plane, uv (0,0) top-left, to the document's scene. */
export function addQuad(document: Document, options: QuadOptions = {}): Node {
  const [cx, cy, cz] = options.center ?? [0, 0, 0];
  const s = options.size ?? 1;
  const facing = options.facing ?? 1;
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const positions = new Float32Array([
    cx - s,
    cy - s,
    cz,
    cx + s,
    cy - s,
    cz,
    cx + s,
    cy + s,
    cz,
    cx - s,
    cy + s,
    cz,
  ]);
  const uvs = new Float32Array([0, 1, 1, 1, 1, 0, 0, 0]);
  const indices = new Uint16Array(facing === 1 ? [0, 1, 2, 0, 2, 3] : [0, 2, 1, 0, 3, 2]);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('TEXCOORD_0', document.createAccessor().setType('VEC2').setArray(uvs).setBuffer(buffer))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  if (!options.withoutNormals) {
    const normals = new Float32Array([0, 0, facing, 0, 0, facing, 0, 0, facing, 0, 0, facing]);
    primitive.setAttribute(
      'NORMAL',
      document.createAccessor().setType('VEC3').setArray(normals).setBuffer(buffer),
    );
  }
  if (options.vertexColor) {
    const colors = new Float32Array(16);
    for (let i = 0; i < 4; i++) colors.set(options.vertexColor, i * 4);
    primitive.setAttribute(
      'COLOR_0',
      document.createAccessor().setType('VEC4').setArray(colors).setBuffer(buffer),
    );
  }
  if (options.material) primitive.setMaterial(options.material);
  const node = document.createNode().setMesh(document.createMesh().addPrimitive(primitive));
  if (options.groupId) node.setExtras({ group_id: options.groupId });
  sceneOf(document).addChild(node);
  return node;
}

/** The document's scene, created on first use. */
export function sceneOf(document: Document): ReturnType<Document['createScene']> {
  const root = document.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0] ?? document.createScene();
  root.setDefaultScene(scene);
  return scene;
}

/** A material that shows its colour unlit, so tests can expect exact pixel values. */
export function unlitMaterial(document: Document, color: [number, number, number, number]): Material {
  const material = document.createMaterial().setBaseColorFactor(color);
  const unlit = document.createExtension(KHRMaterialsUnlit).createUnlit();
  return material.setExtension('KHR_materials_unlit', unlit);
}

/**
 * A GLB with one UV sphere of about `triangles` triangles (indexed, with normals and uvs), wobbled
 * so the shading is not trivially smooth: the benchmark's "large model".
 */
export async function sphereGlb(triangles: number): Promise<Uint8Array> {
  const segments = Math.max(3, Math.round(Math.sqrt(triangles / 2)));
  const rings = Math.max(2, Math.round(triangles / (2 * segments)));
  const vertexCount = (rings + 1) * (segments + 1);
  const positions = new Float32Array(vertexCount * 3);
  const normals = new Float32Array(vertexCount * 3);
  const uvs = new Float32Array(vertexCount * 2);
  let v = 0;
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI;
    for (let s = 0; s <= segments; s++, v++) {
      const phi = (s / segments) * Math.PI * 2;
      const nx = Math.sin(theta) * Math.cos(phi);
      const ny = Math.cos(theta);
      const nz = Math.sin(theta) * Math.sin(phi);
      const radius = 1 + 0.05 * Math.sin(theta * 12) * Math.cos(phi * 9);
      positions.set([nx * radius, ny * radius, nz * radius], v * 3);
      normals.set([nx, ny, nz], v * 3);
      uvs.set([s / segments, r / rings], v * 2);
    }
  }
  const indices = new Uint32Array(rings * segments * 6);
  let i = 0;
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s;
      const b = a + segments + 1;
      indices.set([a, a + 1, b, a + 1, b + 1, b], i);
      i += 6;
    }
  }
  const document = new Document();
  const buffer = document.createBuffer();
  const material = document.createMaterial().setBaseColorFactor([0.8, 0.35, 0.1, 1]).setRoughnessFactor(0.4);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(normals).setBuffer(buffer))
    .setAttribute('TEXCOORD_0', document.createAccessor().setType('VEC2').setArray(uvs).setBuffer(buffer))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer))
    .setMaterial(material);
  sceneOf(document).addChild(
    document.createNode('sphere').setMesh(document.createMesh().addPrimitive(primitive)),
  );
  return toGlb(document);
}
