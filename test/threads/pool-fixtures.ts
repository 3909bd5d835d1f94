import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { CONVERSION_POOL_DEFAULTS } from '../../src/threads/pool-options.ts';
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

/**
 * The failure of a conversion that waited without computing under a limit of `limitSeconds`: where /proc gives the
 * thread's processor time the limit counts it, so the wall-clock ceiling ends the wait; elsewhere the limit is the
 * wall clock's.
 */
export function timedOutWaiting(
  limitSeconds: number,
  factor = CONVERSION_POOL_DEFAULTS.wallCeilingFactor,
): string {
  if (!existsSync('/proc/thread-self')) return `Conversion timed out after ${limitSeconds} s`;
  const ceiling = Number((limitSeconds * factor).toFixed(3));
  return (
    `Conversion timed out after ${ceiling} s on the wall clock ` +
    `(${factor} times its limit of ${limitSeconds} s of processor time)`
  );
}
