// A finished conversion's parts reach the parent in pieces, each read in a task of its own, ahead of the reply that
// completes it: the parent answers other requests between them. Every part arrives, in order, from a thread and
// from a process alike; a count that does not match fails the task.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ConversionResult, PartInfo } from '../../src/pipeline/types.ts';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import type { Task } from '../../src/threads/pool-places.ts';
import { takeTaskReport, withReportedParts } from '../../src/threads/task-reports.ts';
import type { ThreadMessage } from '../../src/threads/thread-protocol.ts';
import { manyPartsName, manyPartsObj } from '../fixtures/many-parts-obj.ts';
import { quietLogger, tempDir } from '../pipeline/documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** More parts than two pieces carry. */
const GROUPS = 10_001;

/** A part as a conversion lists it, named by its index. */
function part(index: number): PartInfo {
  const hash = index.toString(16).padStart(64, '0');
  return {
    group_id: `m:${index}`,
    name: `part ${index}`,
    path: `/part ${index}`,
    triangle_count: 12,
    vertex_count: 8,
    bounds: { min: [0, 0, 0], max: [1, 1, 1] },
    properties: {},
    fingerprint: { geometry: hash, transform: hash, properties: hash, material: hash },
  };
}

/** A task as the pool holds it, for the report functions alone. */
function task(): Task {
  return {
    id: 1,
    message: { type: 'render', id: 1, glb: new Uint8Array(), options: {} },
    timeoutMs: 1_000,
    logger: quietLogger,
    resolve: () => undefined,
    reject: () => undefined,
  };
}

/** The final reply of a conversion whose parts were sent ahead of it, `partCount` of them. */
function converted(partCount: number): ThreadMessage {
  return {
    type: 'converted',
    id: 1,
    result: { parts: [] } as unknown as ConversionResult,
    partCount,
    thumbnail: null,
    thumbnailError: null,
    memory: { retainedMb: 0, grewMb: 0, loadedRuntime: false },
  };
}

void describe('the parts of a finished conversion, in pieces', () => {
  void it('are put back together in the order they came, into the reply that follows them', () => {
    const running = task();
    const all = Array.from({ length: 7 }, (_, index) => part(index));
    for (const piece of [all.slice(0, 3), all.slice(3, 6), all.slice(6)]) {
      takeTaskReport({ ready: true, jobs: 0 }, running, { type: 'parts', id: 1, parts: piece });
    }
    const reply = withReportedParts(running, converted(7));
    assert.ok(!(reply instanceof Error) && reply.type === 'converted');
    assert.deepEqual(reply.result.parts, all);
    // Nothing is kept for the next task of the place.
    assert.equal(running.parts, undefined);
  });

  void it('fail the task when fewer arrived than the place sent', () => {
    const running = task();
    takeTaskReport({ ready: true, jobs: 0 }, running, { type: 'parts', id: 1, parts: [part(0)] });
    const reply = withReportedParts(running, converted(2));
    assert.ok(reply instanceof Error);
    assert.equal(reply.message, 'A conversion thread sent 1 of its 2 parts');
  });

  void it('a model of more parts than two pieces hold: every part, in order, from a thread and from a process', async () => {
    const file = path.join(scratch.dir, 'boxes.obj');
    await writeFile(file, manyPartsObj({ groups: GROUPS, kind: 'distinct' }));
    const results: PartInfo[][] = [];
    for (const isolateAboveBytes of [Infinity, 0]) {
      const pool = createConversionPool({ size: 1, isolateAboveBytes });
      try {
        const result = await pool.convert({
          modelId: 'many',
          source: { file, dir: scratch.dir, format: 'obj' },
          logger: quietLogger,
          lodDir: path.join(scratch.dir, `lods-${isolateAboveBytes}`),
        });
        assert.equal(result.processPeakRssMb !== undefined, isolateAboveBytes === 0);
        assert.deepEqual(
          result.parts.map((each) => each.name),
          Array.from({ length: GROUPS }, (_, index) => manyPartsName(index)),
        );
        results.push(result.parts);
      } finally {
        await pool.close();
      }
    }
    assert.deepEqual(results[0], results[1], 'the same parts from a thread and from a process');
  });
});
