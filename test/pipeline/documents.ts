// Tiny documents built in code, and helpers shared by the pipeline tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, Logger, Primitive } from '@gltf-transform/core';
import type { Mesh, Node } from '@gltf-transform/core';
import validator from 'gltf-validator';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { batchParts } from '../../src/pipeline/lods/batch-parts.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';

/** The sample models, read-only. */
export const MODELS = SAMPLE_MODELS;

/** A logger that stays quiet unless something is wrong. */
export const quietLogger = new Logger(Logger.Verbosity.ERROR);

/** A step context that records warnings, for asserting on them. */
export function recordingContext(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = new Logger(Logger.Verbosity.ERROR);
  logger.warn = (text: string) => void warnings.push(text);
  return { logger, warnings };
}

/** A new document with one buffer and one scene. */
export function emptyDocument(): Document {
  const document = new Document().setLogger(quietLogger);
  document.createBuffer();
  document.createScene('Scene');
  return document;
}

/**
 * Adds an indexed UV sphere mesh (positions, normals, UVs) of `segments` × `rings` quads,
 * i.e. 2 × segments × (rings − 1) triangles once the pole fans are counted.
 */
export function addSphere(
  document: Document,
  segments: number,
  rings: number,
  radius = 1,
  name = 'Sphere',
): Mesh {
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  for (let ring = 0; ring <= rings; ring++) {
    const v = ring / rings;
    const theta = v * Math.PI;
    for (let segment = 0; segment <= segments; segment++) {
      const u = segment / segments;
      const phi = u * Math.PI * 2;
      const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)];
      positions.push(n[0] * radius, n[1] * radius, n[2] * radius);
      normals.push(...n);
      uvs.push(u, v);
    }
  }
  const indices: number[] = [];
  const row = segments + 1;
  for (let ring = 0; ring < rings; ring++) {
    for (let segment = 0; segment < segments; segment++) {
      const a = ring * row + segment;
      const b = a + row;
      if (ring !== 0) indices.push(a, b, a + 1);
      if (ring !== rings - 1) indices.push(a + 1, b, b + 1);
    }
  }
  const buffer = document.getRoot().listBuffers()[0];
  const accessor = (type: 'VEC3' | 'VEC2', array: Float32Array<ArrayBuffer>) =>
    document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(positions)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(normals)))
    .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array(uvs)))
    .setIndices(document.createAccessor().setArray(new Uint32Array(indices)).setBuffer(buffer))
    .setMaterial(document.createMaterial('Grey').setBaseColorFactor([0.6, 0.6, 0.6, 1]));
  return document.createMesh(name).addPrimitive(primitive);
}

/** Adds a mesh of one primitive with the given positions, mode and optional indices. */
export function addRawMesh(
  document: Document,
  positions: number[],
  mode: number = Primitive.Mode.TRIANGLES,
  indices?: number[],
  name = 'Raw',
): Mesh {
  const buffer = document.getRoot().listBuffers()[0];
  const primitive = document
    .createPrimitive()
    .setMode(mode as (typeof Primitive.Mode)[keyof typeof Primitive.Mode])
    .setAttribute(
      'POSITION',
      document.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer),
    );
  if (indices)
    primitive.setIndices(document.createAccessor().setArray(new Uint16Array(indices)).setBuffer(buffer));
  return document.createMesh(name).addPrimitive(primitive);
}

/** Writes a document as GLB into a fresh temporary folder; returns the file path and a clean-up function. */
export async function writeTempGlb(
  document: Document,
  name = 'model.glb',
): Promise<{ file: string; dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-pipeline-'));
  const file = path.join(dir, name);
  await (await createNodeIO()).write(file, document);
  return { file, dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A fresh temporary folder and its clean-up function. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-pipeline-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Error messages the Khronos validator reports for a GLB. */
export async function validationErrors(glb: Uint8Array): Promise<string[]> {
  const report = await validator.validateBytes(glb, { maxIssues: 100 });
  return report.issues.messages
    .filter((message) => message.severity === 0)
    .map((message) => `${message.code} ${message.message} at ${message.pointer ?? ''}`);
}

/** Reads a GLB back into a document. */
export async function readGlb(glb: Uint8Array): Promise<Document> {
  const document = await (await createNodeIO()).readBinary(glb);
  return document.setLogger(quietLogger);
}

/** Hangs `mesh` in the document's scene as part `p<i>` (node `part <i>`), `i` units along x. */
export function addPartNode(document: Document, mesh: Mesh, i: number): Node {
  const node = document
    .createNode(`part ${i}`)
    .setMesh(mesh)
    .setTranslation([i, 0, 0])
    .setExtras({ group_id: `p${i}` });
  document.getRoot().listScenes()[0]!.addChild(node);
  return node;
}

/**
 * A level of `count` sphere parts in a row (`group_id` p0, p1, …, nodes `part 0`, …), alternately grey and red, of
 * `sizes` segment counts, batched as a level of many parts is (a primitive per material); answers it with the
 * triangles of each part.
 */
export function batchedSphereRow(
  count: number,
  sizes: number,
): { document: Document; triangles: Map<string, number> } {
  const document = emptyDocument();
  const red = document.createMaterial('Red').setBaseColorFactor([1, 0, 0, 1]);
  const grey = document.createMaterial('Grey');
  const triangles = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const mesh = addSphere(document, 6 + (i % sizes), 4 + (i % 3), 0.2 + i / 1000);
    mesh.listPrimitives()[0]!.setMaterial(i % 2 ? red : grey);
    triangles.set(`p${i}`, mesh.listPrimitives()[0]!.getIndices()!.getCount() / 3);
    addPartNode(document, mesh, i);
  }
  if (batchParts(document, {}, { logger: quietLogger }) !== count)
    throw new Error('the parts were not batched');
  return { document, triangles };
}

/** The world-space centre of the box around a node's first primitive's vertices. */
export function worldCentre(node: Node): number[] {
  const position = node.getMesh()!.listPrimitives()[0]!.getAttribute('POSITION')!;
  const matrix = node.getWorldMatrix();
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const vertex: number[] = [];
  for (let i = 0; i < position.getCount(); i++) {
    position.getElement(i, vertex);
    for (let axis = 0; axis < 3; axis++) {
      const value =
        matrix[axis]! * vertex[0]! +
        matrix[4 + axis]! * vertex[1]! +
        matrix[8 + axis]! * vertex[2]! +
        matrix[12 + axis]!;
      min[axis] = Math.min(min[axis]!, value);
      max[axis] = Math.max(max[axis]!, value);
    }
  }
  return min.map((value, axis) => (value + max[axis]!) / 2);
}
