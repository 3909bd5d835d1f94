// The sample models the whole-pipeline suites run through, and the views they look at them from.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { MODEL_FORMATS } from '../../src/pipeline/types.ts';
import { MODELS } from './documents.ts';

/** Every model file under the samples folder, relative to it. */
export function sampleModels(dir = MODELS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const absolute = path.join(dir, entry.name);
    if (entry.isDirectory()) return sampleModels(absolute);
    const format = path.extname(entry.name).slice(1).toLowerCase();
    return (MODEL_FORMATS as readonly string[]).includes(format) ? [path.relative(MODELS, absolute)] : [];
  });
}

/** The six axis views: front, right, back, left, top, bottom. */
export const AXIS_VIEWS = [
  { azimuth: 0, elevation: 0 },
  { azimuth: 90, elevation: 0 },
  { azimuth: 180, elevation: 0 },
  { azimuth: 270, elevation: 0 },
  { azimuth: 0, elevation: 90 },
  { azimuth: 0, elevation: -90 },
];
