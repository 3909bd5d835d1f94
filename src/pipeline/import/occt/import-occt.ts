import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Document } from '@gltf-transform/core';
import type { Material, Mesh, Node } from '@gltf-transform/core';
import { toMetresYUp } from '../import-frame.ts';
import { productProperties, readStepProducts, stepPartName, stepProductMatcher } from './step-products.ts';
import { PROPERTIES_EXTRAS_KEY } from '../../part-properties.ts';
import { repairNormals } from '../import-normals.ts';
import { buildOcctMesh } from './import-occt-mesh.ts';
import type { OcctMesh } from './import-occt-mesh.ts';
import { readCadUnit } from './import-occt-units.ts';
import { KeptRuntime } from '../runtime-release.ts';
import { ConversionError } from '../../types.ts';
import type { ImportResult, ImportSource, Importer, StepContext } from '../../types.ts';

/** Step name used in logs and errors. */
export const NAME = 'import-occt';

/** A node of the assembly tree occt-import-js returns. */
interface OcctNode {
  name: string;
  meshes: number[];
  children: OcctNode[];
}

interface OcctResult {
  success: boolean;
  root?: OcctNode;
  meshes?: OcctMesh[];
}

/** Triangulation parameters of occt-import-js. */
interface OcctParams {
  linearUnit: 'millimeter' | 'centimeter' | 'meter' | 'inch' | 'foot';
  linearDeflectionType: 'bounding_box_ratio' | 'absolute_value';
  linearDeflection: number;
  angularDeflection: number;
}

/** The part of the occt-import-js WebAssembly module this importer calls. */
export interface OcctModule {
  ReadStepFile(content: Uint8Array, params: OcctParams | null): OcctResult;
  ReadIgesFile(content: Uint8Array, params: OcctParams | null): OcctResult;
}

/** Options of {@link createOcctImporter}. */
export interface ImportOcctOptions {
  /** Loads the occt-import-js module; the default compiles it once per process. */
  loadOcct: () => Promise<OcctModule>;
  /** Largest distance between the surface and its triangles, as a fraction of the model's mean bounding-box side. */
  linearDeflection: number;
  /** Largest angle between adjacent triangles' normals along a curved surface, in radians. */
  angularDeflection: number;
}

/** What OpenCASCADE printed during the current read; its parser explains a rejected file there. */
const printed: string[] = [];
const capture = (line: string) => {
  if (printed.length < 50) printed.push(line);
};

const occtModule = new KeptRuntime<OcctModule>(() => {
  const factory = createRequire(import.meta.url)('occt-import-js') as (module: object) => Promise<OcctModule>;
  return factory({ print: capture, printErr: capture });
});

/** Defaults of {@link ImportOcctOptions}: detail comparable to a CAD viewer's default tessellation. */
export const IMPORT_OCCT_DEFAULTS: ImportOcctOptions = {
  loadOcct: () => occtModule.get(),
  linearDeflection: 0.001,
  angularDeflection: 0.5,
};

/**
 * An importer for STEP and IGES through OpenCASCADE compiled to WebAssembly: the assembly tree
 * becomes the node tree with product names as node names, face colours become one material per
 * colour, and the millimetre, Z-up tessellation is scaled to metres and turned to +Y up.
 */
export function createOcctImporter(overrides: Partial<ImportOcctOptions> = {}): Importer {
  const options = { ...IMPORT_OCCT_DEFAULTS, ...overrides };
  return {
    name: NAME,
    formats: ['step', 'stp', 'iges', 'igs'],
    read: (source, context) => readWithOcct(source, context, options),
  };
}

/** The default STEP and IGES importer. */
export const importOcct: Importer = createOcctImporter();

async function readWithOcct(
  source: ImportSource,
  context: StepContext,
  options: ImportOcctOptions,
): Promise<ImportResult> {
  const kind = source.format === 'step' || source.format === 'stp' ? 'step' : 'iges';
  const label = kind.toUpperCase();
  const fail = (reason: string) => new ConversionError(`Could not read the ${label} file: ${reason}`);

  const bytes = await readFile(source.file).catch(() => {
    throw fail('the file cannot be opened');
  });
  if (bytes.byteLength === 0) throw fail('the file is empty');
  const sourceUnit = readCadUnit(bytes, kind);

  const occt = await options.loadOcct();
  const params: OcctParams = {
    // Millimetres, then scaled here: asking OpenCASCADE for metres makes it tessellate several times slower.
    linearUnit: 'millimeter',
    linearDeflectionType: 'bounding_box_ratio',
    linearDeflection: options.linearDeflection,
    angularDeflection: options.angularDeflection,
  };
  let result: OcctResult;
  printed.length = 0;
  try {
    result = kind === 'step' ? occt.ReadStepFile(bytes, params) : occt.ReadIgesFile(bytes, params);
  } catch (error) {
    occtModule.drop();
    throw fail(
      `the file is damaged (the importer stopped: ${error instanceof Error ? error.message : String(error)})`,
    );
  }
  // A big assembly leaves OpenCASCADE's memory large; its result is plain arrays, so the runtime may go.
  await occtModule.releaseAfter(occt, bytes.byteLength);
  if (!result.success || !result.root) {
    const reason = parserError();
    throw fail(
      reason ? `the file is damaged or truncated (${reason})` : 'the file is damaged or not in this format',
    );
  }
  // Shapes that tessellated to nothing are dropped here, so the rest can rely on their arrays.
  const meshes = (result.meshes ?? []).map((mesh) => (mesh?.index?.array?.length ? mesh : undefined));
  const sourceTriangleCount = meshes.reduce(
    (sum, mesh) => sum + Math.floor((mesh?.index.array.length ?? 0) / 3),
    0,
  );
  if (sourceTriangleCount === 0) throw fail('no geometry found');
  context.onProgress?.(0.8);

  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene(path.basename(source.file));
  const materials = new Map<string, Material>();
  const built = new Map<string, Mesh>();
  let builtTriangles = 0;
  const fileName = path.basename(source.file).replace(/\.[^.]+$/, '');

  const productOf = stepProductMatcher(kind === 'step' ? readStepProducts(bytes) : []);
  /** What tells a node's product from another of the same name: its meshes' sizes, and its children's names. */
  const shapeOf = (occtNode: OcctNode, indices: number[]): string =>
    [
      ...indices.map(
        (index) => `${meshes[index]!.attributes.position.array.length}/${meshes[index]!.index.array.length}`,
      ),
      ...(occtNode.children ?? []).map((child) => `>${child.name ?? ''}`),
    ].join(',');
  const toNode = (occtNode: OcctNode, fallbackName: string): Node => {
    const given = occtNode.name?.trim() ?? '';
    const indices = (occtNode.meshes ?? []).filter((index) => meshes[index] !== undefined);
    const product = productOf(given, shapeOf(occtNode, indices));
    const node = document.createNode(stepPartName(given, product, fallbackName));
    if (product) node.setExtras({ [PROPERTIES_EXTRAS_KEY]: productProperties(product) });
    if (indices.length > 0) {
      const key = indices.join(',');
      let mesh = built.get(key);
      if (!mesh) {
        // A model of many shapes builds for a while: heard from at each one.
        builtTriangles += indices.reduce((sum, index) => sum + meshes[index]!.index.array.length / 3, 0);
        context.onProgress?.(0.8 + 0.15 * Math.min(1, builtTriangles / sourceTriangleCount));
        mesh = buildOcctMesh(
          document,
          buffer,
          materials,
          indices.map((index) => meshes[index]!),
        );
        mesh.setName(node.getName());
        built.set(key, mesh);
      }
      node.setMesh(mesh);
    }
    (occtNode.children ?? []).forEach((child, index) =>
      node.addChild(toNode(child, `${node.getName()} ${index + 1}`)),
    );
    return node;
  };
  scene.addChild(toNode(result.root, fileName));

  repairNormals(document);
  // OpenCASCADE output is in millimetres (asked for above); CAD models are Z-up.
  toMetresYUp(document, 0.001, '+Z');
  context.logger.debug(
    `${NAME}: ${sourceTriangleCount} triangles in ${meshes.length} meshes, ${materials.size} colours, unit ${sourceUnit}`,
  );
  context.onProgress?.(1);
  return { document, sourceTriangleCount, sourceUnit, sourceUpAxis: '+Z' };
}

/** The parser's complaint, e.g. `line 843: unexpected end of file`, from what OpenCASCADE printed. */
function parserError(): string | undefined {
  const line = printed.findLast((text) => /\bERR\b/.test(text));
  const match = line && /Line\s+(\d+)\s*:\s*(?:Incorrect syntax:\s*)?(.*?)\s*\**\s*$/.exec(line);
  return match ? `line ${match[1]}: ${match[2]}` : undefined;
}
