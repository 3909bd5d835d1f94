import { importGltf } from './import-gltf.ts';
import type { Importer, ModelFormat } from './types.ts';

/** Every importer the pipeline knows; a new format is one new file plus one line here. */
export const IMPORTERS: readonly Importer[] = [importGltf];

/** The importer that reads `format`, or `undefined` when none does. */
export function importerFor(format: ModelFormat): Importer | undefined {
  return IMPORTERS.find((importer) => importer.formats.includes(format));
}
