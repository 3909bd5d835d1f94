import type { ILogger } from '@gltf-transform/core';
import { lapTimer } from './lap-timer.ts';
import { peakRssBytes } from './peak-rss.ts';

const MIB = 1024 * 1024;

/**
 * A debug log of where a conversion spends its time and memory: each call logs the step just finished with its
 * duration, the resident set, the JavaScript heap, memory outside it (typed arrays and WebAssembly heaps) and the
 * peak resident set so far, e.g. `convert-model: LOD 0 written in 412 ms; rss 355 MiB (peak 452), heap 15, external 256`.
 * A handful of calls per conversion, so measuring costs nothing worth a switch.
 */
export function createStageLog(logger: ILogger, name: string): (step: string) => void {
  const lap = lapTimer();
  return (step) => {
    const ms = lap();
    const { rss, heapUsed, external } = process.memoryUsage();
    const peak = peakRssBytes();
    logger.debug(
      `${name}: ${step} in ${ms} ms; rss ${Math.round(rss / MIB)} MiB ` +
        `(peak ${Math.round(peak / MIB)}), heap ${Math.round(heapUsed / MIB)}, external ${Math.round(external / MIB)}`,
    );
  };
}
