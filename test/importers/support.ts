import path from 'node:path';
import type { Document, ILogger } from '@gltf-transform/core';
import validator from 'gltf-validator';
import type { ValidationReport } from 'gltf-validator';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import type { ImportResult, ModelFormat, StepContext } from '../../src/pipeline/types.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';

/** The sample models, read-only. */
export const MODELS = SAMPLE_MODELS;

/** A non-glTF sample, with the triangle count SOURCES.md gives for it where it gives one. */
export interface Sample {
  file: string;
  triangles?: number;
}

/** Every sample an importer of this folder reads, by importer. */
export const SAMPLES = {
  assimp: [
    { file: 'obj/spider/spider.obj', triangles: 1368 },
    { file: 'obj/spot_triangulated.obj', triangles: 5856 },
    { file: 'stl/sphereWithHole.stl', triangles: 285 },
    { file: 'stl/cyl_w_rect_hole.stl', triangles: 780 },
    { file: 'stl/counter.unitsmm.STL', triangles: 83750 },
    { file: 'ply/Wuson.ply', triangles: 3732 },
    { file: 'ply/moebius-160-10.ply', triangles: 2880 },
    { file: 'fbx/spider/spider.fbx', triangles: 1368 },
    { file: 'fbx/cubes_with_names.fbx' },
    { file: 'fbx/maya_kenney_character_7700_binary.fbx' },
    { file: 'dae/duck/duck.dae', triangles: 4212 },
    { file: 'dae/franka_fer_link0.dae', triangles: 20483 },
  ],
  occt: [
    { file: 'step/red_cube_blue_cylinder.step' },
    { file: 'step/screw.step' },
    { file: 'step/linkrods.step' },
  ],
  ifc: [
    { file: 'ifc/AC14-FZK-Haus.ifc' },
    { file: 'ifc/IfcOpenHouse_IFC4.ifc' },
    { file: 'ifc/beam-standard-case.ifc' },
  ],
} satisfies Record<string, Sample[]>;

/** The format of a sample path, from its extension. */
export function formatOf(file: string): ModelFormat {
  return path.extname(file).slice(1).toLowerCase() as ModelFormat;
}

/** A logger that keeps what it is told, for tests that check warnings. */
export function recordingContext(): StepContext & { lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (text: string) => void lines.push(`${level}: ${text}`);
  const logger: ILogger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
  return { logger, lines };
}

const imports = new Map<string, Promise<ImportResult & { lines: string[] }>>();

/** Imports a sample through the registry once per test process; later calls share the result. */
export function importSample(file: string): Promise<ImportResult & { lines: string[] }> {
  let pending = imports.get(file);
  if (!pending) {
    pending = readSample(file);
    imports.set(file, pending);
  }
  return pending;
}

/** Imports a sample through the registry, every call anew. */
export async function readSample(file: string): Promise<ImportResult & { lines: string[] }> {
  const absolute = path.join(MODELS, file);
  const format = formatOf(file);
  const importer = importerFor(format);
  if (!importer) throw new Error(`no importer for ${format}`);
  const context = recordingContext();
  const result = await importer.read({ file: absolute, dir: path.dirname(absolute), format }, context);
  return { ...result, lines: context.lines };
}

/** Writes a document as GLB and runs the Khronos validator on it. */
export async function validate(document: Document): Promise<ValidationReport> {
  const io = await createNodeIO();
  const glb = await io.writeBinary(document);
  return validator.validateBytes(glb, { maxIssues: 50 });
}

/** The errors of a validation report, one line each. */
export function errorsOf(report: ValidationReport): string[] {
  return report.issues.messages
    .filter((m) => m.severity === 0)
    .map((m) => `${m.code} ${m.pointer ?? ''} ${m.message}`);
}

/** Triangles of each mesh of a document counted once, the way importers count their source. */
export function triangleCount(document: Document): number {
  let triangles = 0;
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      if (primitive.getMode() !== 4) continue;
      const indices = primitive.getIndices();
      triangles += Math.floor(
        (indices ? indices.getCount() : primitive.getAttribute('POSITION')!.getCount()) / 3,
      );
    }
  }
  return triangles;
}
