// The parts of the version a conversion continues reach the pipeline through the pool, in a thread and in a process
// of its own: a part that continues one takes its group id, the others the new prefix.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import type { PreviousPart } from '../../src/pipeline/types.ts';
import { quietLogger, tempDir } from '../pipeline/documents.ts';
import { truck } from './pool-fixtures.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

void it('passes previousParts and newGroupIdPrefix to a conversion in a thread and in a process', async () => {
  const threads = createConversionPool({ size: 1 });
  // Every file above a kilobyte (the truck) converts in a process of its own.
  const processes = createConversionPool({ size: 1, isolateAboveBytes: 1024 });
  try {
    const first = await threads.convert({ modelId: 'truck', source: truck, logger: quietLogger });
    assert.deepEqual(
      first.parts.map((part) => part.group_id),
      ['truck:0', 'truck:1', 'truck:2'],
    );
    // The first two parts as a version before stored them, under ids of that version; the third is new.
    const previous: PreviousPart[] = first.parts.slice(0, 2).map((part, index) => ({
      group_id: `truck:v1-${index}`,
      name: part.name,
      path: part.path,
      fingerprint: part.fingerprint,
    }));
    const expected = ['truck:v1-0', 'truck:v1-1', 'truck:v2-2'];
    const request = { modelId: 'truck', source: truck, logger: quietLogger };
    const options = { previousParts: previous, newGroupIdPrefix: 'truck:v2-' };
    const inThread = await threads.convert({ ...request, ...options });
    assert.deepEqual(
      inThread.parts.map((part) => part.group_id),
      expected,
    );
    const inProcess = await processes.convert({
      ...request,
      ...options,
      lodDir: path.join(scratch.dir, 'lods'),
    });
    assert.ok(inProcess.processPeakRssMb! > 0, 'converted in a process of its own');
    assert.deepEqual(
      inProcess.parts.map((part) => part.group_id),
      expected,
    );
    assert.deepEqual(
      inProcess.parts.map((part) => part.fingerprint),
      first.parts.map((part) => part.fingerprint),
    );
  } finally {
    await Promise.all([threads.close(), processes.close()]);
  }
});
