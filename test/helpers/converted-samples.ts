// Sample models converted once per `npm test` run and shared by the suites that read them: the fidelity, ladder
// and importer suites all convert every sample with the pipeline's defaults, and each would otherwise pay for the
// same conversions again. The runner names a folder for the run in TEST_CONVERSION_CACHE (removed after it); run
// outside the runner, each call converts.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { Logger } from '@gltf-transform/core';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ConversionResult, ModelFormat } from '../../src/pipeline/types.ts';
import { SAMPLE_MODELS } from './sample-models.ts';

/** The model id every shared conversion is made under (its parts' group ids start `sample:`). */
export const SAMPLE_MODEL_ID = 'sample';

/** How long a suite waits for another suite converting the same sample before converting it itself. */
const WAIT_FOR_OTHER_MS = 10 * 60_000;

/**
 * The sample at `relative` (under `test/fixtures/models/`) converted with `convertModel`'s defaults: from the run's
 * cache when another suite converted it already (waiting while one is converting it), else converted here and
 * kept for the others. Each call returns its own copy, so a suite may change what it is given.
 */
export async function convertedSample(relative: string): Promise<ConversionResult> {
  const folder = process.env.TEST_CONVERSION_CACHE;
  if (!folder) return convertSample(relative);
  const key = createHash('sha256').update(relative).digest('hex').slice(0, 24);
  const done = path.join(folder, `${key}.v8`);
  const claim = path.join(folder, `${key}.converting`);
  // Watching before looking, so a result written between the look and the wait still wakes this suite.
  const changes = folderChanges(folder);
  try {
    const deadline = Date.now() + WAIT_FOR_OTHER_MS;
    while (!fs.existsSync(done)) {
      if (tryClaim(claim)) {
        try {
          const result = await convertSample(relative);
          // Written under another name and renamed, so a reader never sees half a file.
          const partial = `${done}.${randomBytes(4).toString('hex')}`;
          fs.writeFileSync(partial, serialize(result));
          fs.renameSync(partial, done);
          return result;
        } finally {
          fs.rmSync(claim, { force: true });
        }
      }
      // Another suite is converting it: its result, or its claim let go, changes the folder. One that hangs
      // holding the claim leaves the sample to this suite at the deadline.
      if (!(await changes.next(deadline))) return convertSample(relative);
    }
  } finally {
    changes.close();
  }
  return withOwnBuffers(deserialize(fs.readFileSync(done))) as ConversionResult;
}

/**
 * The value with each byte array copied into a buffer of its own: deserialized arrays share one buffer at any
 * offset, where readers of GLBs view them as 32-bit words. One array met twice stays one copy (a level that is the
 * level before it holds the very same bytes).
 */
function withOwnBuffers(value: unknown, copies = new Map<Uint8Array, Uint8Array>()): unknown {
  if (value instanceof Uint8Array) {
    const copy = copies.get(value) ?? new Uint8Array(value);
    copies.set(value, copy);
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => withOwnBuffers(item, copies));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value).map(([key, item]) => [key, withOwnBuffers(item, copies)]);
    return Object.fromEntries(entries);
  }
  return value;
}

/** Changes to a folder as they come: `next` resolves true at the next one (or one since the last call), false at the deadline. */
function folderChanges(folder: string): { next(deadline: number): Promise<boolean>; close(): void } {
  let changed = false;
  let wake: (() => void) | undefined;
  const watcher = fs.watch(folder, () => {
    changed = true;
    wake?.();
  });
  return {
    next: (deadline) =>
      new Promise((resolve) => {
        const settle = (value: boolean) => {
          clearTimeout(timer);
          changed = false;
          wake = undefined;
          resolve(value);
        };
        const timer = setTimeout(() => settle(false), Math.max(0, deadline - Date.now()));
        if (changed) settle(true);
        else wake = () => settle(true);
      }),
    close: () => watcher.close(),
  };
}

/** Takes the claim to convert a sample; false when another live suite holds it (a dead one's is taken over). */
function tryClaim(claim: string): boolean {
  try {
    fs.writeFileSync(claim, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let holder = 0;
  try {
    holder = Number(fs.readFileSync(claim, 'utf8'));
  } catch {
    // Released since: the next round finds the result or takes the claim.
  }
  if (holder > 0 && !isAlive(holder)) fs.rmSync(claim, { force: true });
  return false;
}

/** Whether a process of this id runs. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Converts a sample with the pipeline's defaults, logging errors only. */
function convertSample(relative: string): Promise<ConversionResult> {
  const file = path.join(SAMPLE_MODELS, relative);
  return convertModel({
    modelId: SAMPLE_MODEL_ID,
    source: {
      file,
      dir: path.dirname(file),
      format: path.extname(file).slice(1).toLowerCase() as ModelFormat,
    },
    logger: new Logger(Logger.Verbosity.ERROR),
  });
}
