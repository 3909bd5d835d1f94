import path from 'node:path';
import type { DetectedFormat } from './detect-format.ts';
import { extractArchive } from './archive/extract-archive.ts';
import type { ExtractArchiveOptions } from './archive/extract-archive.ts';
import type { ImportSource } from './types.ts';

/** Options of {@link prepareSource}. */
export interface PrepareSourceOptions {
  /** The stored upload on local disk. */
  file: string;
  /** What the upload was judged to be when it arrived (`detectModelFormat`); it is not judged again. */
  upload: DetectedFormat;
  /** A scratch folder of this conversion, where a zip is extracted; the caller removes it afterwards. */
  workDir: string;
  /** Limits for zip extraction. */
  archive?: ExtractArchiveOptions;
}

/**
 * Turns an upload into the {@link ImportSource} a conversion reads: a model file is used where it lies
 * (its resources beside it), a zip is extracted safely into `workDir` and its model file picked.
 */
export async function prepareSource(options: PrepareSourceOptions): Promise<ImportSource> {
  const detected = options.upload;
  if (!detected.archive || !detected.entry) {
    return { file: options.file, dir: path.dirname(options.file), format: detected.format };
  }
  const dir = path.join(options.workDir, 'archive');
  await extractArchive(options.file, dir, options.archive);
  const file = path.join(dir, ...detected.entry.split('/'));
  return { file, dir: path.dirname(file), format: detected.format };
}
