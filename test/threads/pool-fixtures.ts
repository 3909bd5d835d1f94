import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { MODELS } from '../pipeline/documents.ts';

/** The textured milk truck: 3 parts, LODs of 3,624 / 2,076 / 1,612 triangles. */
export const truck: ImportSource = {
  file: path.join(MODELS, 'glb/CesiumMilkTruck.glb'),
  dir: path.join(MODELS, 'glb'),
  format: 'glb',
};

/** Writes a one-triangle ASCII STL named `name` into `dir`: a model the pool converts in a fraction of a second. */
export async function writeTinyStl(dir: string, name: string): Promise<ImportSource> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    'solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n',
  );
  return { file, dir, format: 'stl' };
}
