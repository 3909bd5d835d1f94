// Run by conversion-pool.test.ts under the tsx command line: renders a sample in a pool thread and prints
// the PNG's signature.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import { MODELS } from '../pipeline/documents.ts';

const pool = createConversionPool({ size: 1 });
const glb = new Uint8Array(await readFile(path.join(MODELS, 'glb/MultiUVTest.glb')));
const png = await pool.render(glb, { width: 64, height: 64 });
await pool.close();
process.stdout.write(JSON.stringify({ signature: png.subarray(1, 4).toString('latin1') }));
