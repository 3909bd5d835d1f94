import { importAssimp } from './assimp/import-assimp.ts';
import { importGltf } from './gltf/import-gltf.ts';
import { importIfc } from './ifc/import-ifc.ts';
import { importObj } from './obj/import-obj.ts';
import { importOcct } from './occt/import-occt.ts';
import { importPly } from './ply/import-ply.ts';
import { importStl } from './stl/import-stl.ts';
import type { Importer, ModelFormat } from '../types.ts';

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
