import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Document } from '@gltf-transform/core';
import type { Material, Node } from '@gltf-transform/core';
import type { IfcAPI } from 'web-ifc';
import { readProductGeometry } from './import-ifc-geometry.ts';
import { IfcProductMeshes } from './ifc-product-meshes.ts';
import { readLengthUnit, readObjectInfo, readParents } from './import-ifc-spatial.ts';
import type { IfcRelationTypes } from './import-ifc-spatial.ts';
import { readIfcProperties } from './import-ifc-properties.ts';
import type { IfcPropertyTypes } from './import-ifc-properties.ts';
import { PROPERTIES_EXTRAS_KEY, PROPERTY_LIMITS } from '../../part-properties.ts';
import { listMeshNodes } from '../../../gltf/measure-geometry.ts';
import { repairNormals } from '../import-normals.ts';
import { KeptRuntime } from '../runtime-release.ts';
import { ConversionError } from '../../types.ts';
import type { ImportResult, ImportSource, Importer, StepContext } from '../../types.ts';

/** Step name used in logs and errors. */
export const NAME = 'import-ifc';

/** An initialised web-ifc API with the type codes this importer looks up. */
export interface IfcRuntime {
  api: IfcAPI;
  types: IfcRelationTypes & IfcPropertyTypes & { IFCPROJECT: number };
}

/** Options of {@link createIfcImporter}. */
export interface ImportIfcOptions {
  /** Loads and initialises web-ifc; the default does it once per process and reuses the API. */
  loadIfc: () => Promise<IfcRuntime>;
  /** Moves a georeferenced model next to the origin, trading real-world coordinates for float precision. */
  coordinateToOrigin: boolean;
  /** Most properties read over all products, in the order their parts are listed (the model's cap by default). */
  propertyBudget: number;
}

const runtime = new KeptRuntime<IfcRuntime>(async () => {
  const WebIfc = await import('web-ifc');
  const api = new WebIfc.IfcAPI();
  // In Node the .wasm file is read from the package folder, not fetched beside the script.
  const folder = path.dirname(createRequire(import.meta.url).resolve('web-ifc'));
  api.SetWasmPath(folder + path.sep, true);
  await api.Init(undefined, true);
  api.SetLogLevel(WebIfc.LogLevel.LOG_LEVEL_OFF);
  return { api, types: WebIfc };
});

/** Defaults of {@link ImportIfcOptions}. */
export const IMPORT_IFC_DEFAULTS: ImportIfcOptions = {
  loadIfc: () => runtime.get(),
  coordinateToOrigin: false,
  propertyBudget: PROPERTY_LIMITS.perModel,
};

/**
 * An importer for IFC (IFC2X3, IFC4, IFC4X3) through web-ifc: one part per product with geometry,
 * named by its `Name` and carrying its `GlobalId` as `extras.group_id`, under nodes mirroring the
 * spatial structure (project / site / building / storey), with one material per colour. Each part's
 * properties (attributes, type, storey, material, property and quantity sets) go to extract-parts.
 */
export function createIfcImporter(overrides: Partial<ImportIfcOptions> = {}): Importer {
  const options = { ...IMPORT_IFC_DEFAULTS, ...overrides };
  return {
    name: NAME,
    formats: ['ifc'],
    read: (source, context) => readWithWebIfc(source, context, options),
  };
}

/** The default IFC importer. */
export const importIfc: Importer = createIfcImporter();

async function readWithWebIfc(
  source: ImportSource,
  context: StepContext,
  options: ImportIfcOptions,
): Promise<ImportResult> {
  const fail = (reason: string) => new ConversionError(`Could not read the IFC file: ${reason}`);
  const bytes = await readFile(source.file).catch(() => {
    throw fail('the file cannot be opened');
  });
  if (bytes.byteLength === 0) throw fail('the file is empty');
  checkEnvelope(bytes, fail);

  const { api, types } = await options.loadIfc();
  let modelID = -1;
  try {
    modelID = api.OpenModel(bytes, { COORDINATE_TO_ORIGIN: options.coordinateToOrigin });
    if (modelID < 0) throw fail('the file is damaged or not in this format');
    const schema = api.GetModelSchema(modelID);
    const sourceUnit = readLengthUnit(api, modelID, types.IFCPROJECT);
    const storeyUnit = sourceUnit === 'unknown' ? undefined : sourceUnit;
    const { products, geometries } = readProductGeometry(api, modelID, () => context.onProgress?.(0.1));
    context.onProgress?.(0.7);
    const sourceTriangleCount = products.reduce((sum, product) => sum + product.triangles, 0);
    if (sourceTriangleCount === 0) throw fail('no geometry found');

    const document = new Document();
    const buffer = document.createBuffer();
    const scene = document.createScene(path.basename(source.file));
    const parents = readParents(api, modelID, types);
    const nodes = new Map<number, Node>();
    const projectIds = api.GetLineIDsWithType(modelID, types.IFCPROJECT);
    const project = projectIds.size() > 0 ? projectIds.get(0) : undefined;

    const nodeFor = (expressID: number, visiting = new Set<number>()): Node => {
      const existing = nodes.get(expressID);
      if (existing) return existing;
      const info = readObjectInfo(api, modelID, expressID, storeyUnit);
      const node = document.createNode(info.name).setExtras({ group_id: info.globalId, ifc_type: info.type });
      nodes.set(expressID, node);
      visiting.add(expressID);
      const parent = parents.get(expressID) ?? (expressID !== project ? project : undefined);
      // A product outside the spatial structure still hangs under the project, so every path starts there.
      if (parent !== undefined && !visiting.has(parent)) nodeFor(parent, visiting).addChild(node);
      else scene.addChild(node);
      return node;
    };

    const materials = new Map<string, Material>();
    const meshes = new IfcProductMeshes(document, buffer, geometries, (color) =>
      materialFor(document, materials, color),
    );
    // Every node first: whether a product has children decides whether its node may hold its placement.
    const productNodes = products.map((product) => nodeFor(product.expressID));
    products.forEach((product, index) => meshes.place(productNodes[index], product));
    geometries.clear();
    // Read in the order extract-parts lists the parts, so the model's cap keeps the same properties it kept when
    // every product was read.
    const idOfNode = new Map(products.map((product, index) => [productNodes[index], product.expressID]));
    const listed = listMeshNodes(document).flatMap(({ node }) => idOfNode.get(node) ?? []);
    const read = readIfcProperties(api, modelID, listed, parents, project, types, options.propertyBudget);
    if (read.dropped + read.unread > 0) {
      const caps = `the caps of ${PROPERTY_LIMITS.perPart} a part and ${PROPERTY_LIMITS.perModel} a model`;
      context.logger.warn(
        `${NAME}: ${read.dropped} properties dropped past ${caps}; ` +
          `${read.unread} products' properties not read past the model's cap`,
      );
    }
    for (const [expressID, set] of read.properties) {
      const node = nodes.get(expressID);
      if (node) node.setExtras({ ...node.getExtras(), [PROPERTIES_EXTRAS_KEY]: set });
    }
    repairNormals(document);

    context.logger.debug(
      `${NAME}: ${schema}, ${products.length} products (${meshes.reused} drawing another's mesh), ${sourceTriangleCount} triangles, ${materials.size} colours, unit ${sourceUnit}`,
    );
    context.onProgress?.(1);
    // web-ifc applies the project's length unit and turns IFC's Z-up to +Y up.
    return { document, sourceTriangleCount, sourceUnit, sourceUpAxis: '+Z' };
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    // A trap can leave the module's memory inconsistent, so the next import starts a fresh API.
    runtime.drop();
    throw fail(
      `the file is damaged (the importer stopped: ${error instanceof Error ? error.message : String(error)})`,
    );
  } finally {
    if (modelID >= 0) {
      try {
        api.CloseModel(modelID);
      } catch {
        // A model that failed half-way may already be gone.
        runtime.drop();
      }
    }
    // A building of many elements leaves web-ifc's memory large: let it go for the rest of the conversion.
    await runtime.releaseAfter(api.wasmModule, bytes.byteLength);
  }
}

/** An IFC file is an ISO 10303-21 exchange file: a cut-off upload is caught by its missing end marker. */
function checkEnvelope(bytes: Uint8Array, fail: (reason: string) => ConversionError): void {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString(
    'latin1',
  );
  if (!/^\s*(\uFEFF)?ISO-10303-21\s*;/.test(head))
    throw fail('it does not start with the ISO-10303-21 header');
  const tailStart = Math.max(0, bytes.byteLength - 4096);
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + tailStart, bytes.byteLength - tailStart).toString(
    'latin1',
  );
  if (!/END-ISO-10303-21\s*;/.test(tail)) throw fail('the file is truncated (no END-ISO-10303-21 marker)');
}

/** One material per colour; translucent colours blend and show both faces, as glazing does. */
function materialFor(
  document: Document,
  materials: Map<string, Material>,
  color: [number, number, number, number],
): Material {
  const key = color
    .map((value) =>
      Math.round(value * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('');
  let material = materials.get(key);
  if (!material) {
    material = document
      .createMaterial(`ifc-${key}`)
      .setBaseColorFactor(color)
      .setMetallicFactor(0)
      .setRoughnessFactor(0.8);
    if (color[3] < 1) material.setAlphaMode('BLEND').setDoubleSided(true);
    materials.set(key, material);
  }
  return material;
}
