import { importAssimp } from './import-assimp.ts';
import { importGltf } from './import-gltf.ts';
import { importIfc } from './import-ifc.ts';
import { importObj } from './import-obj.ts';
import { importOcct } from './import-occt.ts';
import { importPly } from './import-ply.ts';
import { importStl } from './import-stl.ts';
import type { Importer, ModelFormat } from './types.ts';

/** Every importer the pipeline knows; a new format is one new file plus one line here. */
export const IMPORTERS: readonly Importer[] = [
  importGltf,
  // STL, PLY and OBJ are read in JavaScript before assimp is asked: streaming, without its copies.
  importStl,
  importPly,
  importObj,
  importAssimp,
  importOcct,
  importIfc,
];

/** The importer that reads `format`, or `undefined` when none does. */
export function importerFor(format: ModelFormat): Importer | undefined {
  return IMPORTERS.find((importer) => importer.formats.includes(format));
}
