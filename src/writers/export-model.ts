import { Logger } from '@gltf-transform/core';
import sharp from 'sharp';
import { createNodeIO } from '../gltf/create-io.ts';
import { applyBoundMaterials, createPartPainter, type BoundMaterial } from './bound-material.ts';
import type { ExportFormat, ExportUnit } from './export-formats.ts';
import { flattenParts } from './flatten-parts.ts';
import { applyMaterialVariants, type MaterialVariant } from './material-variants.ts';
import { plainDocument } from './plain-document.ts';
import { splitFeatureParts } from '../render/scene/split-feature-parts.ts';
import { write3mf } from './write-3mf.ts';
import { writeGlb } from './write-glb.ts';
import { writeObjZip } from './write-obj.ts';
import { writeStl } from './write-stl.ts';
import { writeUsdz } from './write-usdz.ts';

/** Options of {@link exportModel}. */
export interface ExportModelOptions {
  format: ExportFormat;
  /** Material bound to each `group_id` that has one; empty for `materials=source`. */
  bound: ReadonlyArray<readonly [string, BoundMaterial]>;
  /** The model's name, written where a format keeps one (STL header, root prim, file names). */
  title: string;
  /** Length unit of STL and 3MF (which are written +Z up); the other formats keep metres and +Y up. */
  unit: ExportUnit;
  /** GLB only: `KHR_materials_variants` variants over the bound materials, one per configuration; none if absent. */
  variants?: readonly MaterialVariant[];
}

/**
 * Reads a converted LOD, bakes the bound materials into it (a GLB also gets the variants) and writes it in the
 * requested format.
 */
export async function exportModel(glb: Uint8Array, options: ExportModelOptions): Promise<Uint8Array> {
  const io = await createNodeIO();
  // glTF-Transform's info lines (what prune removed) are routine here.
  const read = (await io.readBinary(glb)).setLogger(new Logger(Logger.Verbosity.WARN));
  const document = await plainDocument(read, sharp);
  // A level of many parts draws them batched: each part becomes its own object again.
  splitFeatureParts(document);
  const painter = createPartPainter(document);
  applyBoundMaterials(document, new Map(options.bound), painter);
  switch (options.format) {
    case 'glb':
      applyMaterialVariants(document, options.variants ?? [], painter);
      return writeGlb(document);
    case 'stl':
      return writeStl(flattenParts(document), options.title, options.unit);
    case 'obj':
      return writeObjZip(flattenParts(document), options.title);
    case '3mf':
      return write3mf(flattenParts(document), options.title, options.unit);
    case 'usdz':
      return writeUsdz(flattenParts(document), options.title);
  }
}
