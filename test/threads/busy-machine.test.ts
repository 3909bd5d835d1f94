// Valid STEP and IFC files convert under a short stall limit while busy processes load every core: the watchdog
// judges a silent conversion by its own processor time, so waiting for a core is not taken for a wedged importer.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import type { ConversionPool } from '../../src/threads/pool-types.ts';
import { MODELS, quietLogger } from '../pipeline/documents.ts';
import { startCpuSpinners, type CpuSpinners } from './cpu-spinners.ts';

/** The STEP and IFC files of a models folder, as conversion sources. */
function stepAndIfc(root: string): ImportSource[] {
  return (['step', 'ifc'] as const).flatMap((format) => {
    const dir = path.join(root, format);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((name) => name.toLowerCase().endsWith(`.${format === 'step' ? 'step' : 'ifc'}`))
      .map((name) => ({ file: path.join(dir, name), dir, format }));
  });
}

// The repository's fixtures hold the sample set's STEP and IFC files byte for byte (linkrods, the screw, the FZK
// house…) and the Duplex besides, so the suite reads them alone and runs the same on a bare clone.
const SOURCES = stepAndIfc(MODELS);

let pool: ConversionPool;
let spinners: CpuSpinners;
before(() => {
  // 3 s of silence where the service allows 15 s, with two busy processes per core beside the conversions.
  pool = createConversionPool({ size: 1, stallMs: 3_000, timeoutMs: 300_000 });
  spinners = startCpuSpinners(2);
});
after(async () => {
  await spinners.stop();
  await pool.close();
});

void it('finds linkrods.step, the threaded screw and the IFC house among the samples', () => {
  const names = SOURCES.map((source) => path.basename(source.file));
  for (const name of ['linkrods.step', 'screw.step', 'AC14-FZK-Haus.ifc'])
    assert.ok(names.includes(name), name);
});

for (const source of SOURCES) {
  void it(`converts ${path.relative(path.resolve(MODELS, '..'), source.file)} with a 3 s stall limit on a loaded machine`, async () => {
    const result = await pool.convert({ modelId: path.basename(source.file), source, logger: quietLogger });
    assert.ok(result.triangle_count > 0);
    assert.equal(result.lods.length, 3);
  });
}
