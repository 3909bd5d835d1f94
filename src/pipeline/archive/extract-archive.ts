import { createWriteStream } from 'node:fs';
import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Entry, ZipFile } from 'yauzl';
import { archiveEntries, MAX_ARCHIVE_ENTRIES, openArchive, tooManyEntries } from './read-archive.ts';
import { ConversionError } from '../types.ts';

/** Step name used in logs and errors. */
export const NAME = 'extract-archive';

/** Limits that keep a hostile archive from filling the disk. */
export interface ExtractArchiveOptions {
  /** Most entries (files and folders) an archive may hold. */
  maxEntries?: number;
  /** Most bytes the whole archive may inflate to, counted as they are written. */
  maxBytes?: number;
  /** Most inflated bytes per byte of archive, over the whole archive. */
  maxRatio?: number;
  /** Inflated bytes below which the ratio is not enforced, so a tiny zip of repetitive text still opens. */
  ratioGraceBytes?: number;
}

/** Defaults for {@link ExtractArchiveOptions}. */
export const EXTRACT_ARCHIVE_DEFAULTS: Required<ExtractArchiveOptions> = {
  maxEntries: MAX_ARCHIVE_ENTRIES,
  maxBytes: 2 * 1024 ** 3,
  maxRatio: 200,
  ratioGraceBytes: 1024 ** 2,
};

/**
 * Extracts a zip into `destDir`, streaming each file to disk. Refuses entries that would land outside
 * `destDir` and archives that inflate beyond the limits; on refusal the caller removes `destDir`.
 * Returns the relative paths of the files written.
 */
export async function extractArchive(
  zipPath: string,
  destDir: string,
  options: ExtractArchiveOptions = {},
): Promise<string[]> {
  const limits = { ...EXTRACT_ARCHIVE_DEFAULTS, ...options };
  await mkdir(destDir, { recursive: true });
  const root = await realpath(destDir);
  const archiveSize = (await stat(zipPath)).size;
  const maxBytes = Math.min(limits.maxBytes, Math.max(limits.ratioGraceBytes, archiveSize * limits.maxRatio));
  const byRatio = maxBytes < limits.maxBytes;

  const zip = await openArchive(zipPath);
  const written: string[] = [];
  let total = 0;
  try {
    if (zip.entryCount > limits.maxEntries) throw tooManyEntries(zip.entryCount, limits.maxEntries);
    for await (const entry of archiveEntries(zip)) {
      const target = safeTarget(root, entry.name);
      if (entry.symlink) throw new ConversionError(`Archive entry "${entry.name}" is a symbolic link`);
      if (entry.directory) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          total += chunk.length;
          if (total > maxBytes) callback(tooLarge(byRatio, limits, maxBytes));
          else callback(null, chunk);
        },
      });
      const source = await openEntry(zip, entry.raw, entry.name);
      try {
        await pipeline(source, counter, createWriteStream(target));
      } catch (error) {
        // Drop the partial file now: after a bomb it can be the whole size limit.
        await rm(target, { force: true });
        if (error instanceof ConversionError) throw error;
        throw new ConversionError(
          `Archive entry "${entry.name}" cannot be extracted: ${(error as Error).message}`,
        );
      }
      written.push(path.relative(root, target).split(path.sep).join('/'));
    }
  } finally {
    zip.close();
  }
  return written;
}

/** The absolute path an entry extracts to, or a ConversionError when it would escape `root`. */
function safeTarget(root: string, name: string): string {
  const outside = new ConversionError(`Archive entry "${name}" points outside the archive`);
  if (name.includes('\0') || path.posix.isAbsolute(name) || /^[a-zA-Z]:/.test(name)) throw outside;
  const target = path.resolve(root, name);
  if (target !== root && !target.startsWith(root + path.sep)) throw outside;
  return target;
}

/** Opens the inflating stream of one entry (yauzl also checks the stored sizes and CRC as it goes). */
function openEntry(zip: ZipFile, entry: Entry, name: string): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(new ConversionError(`Archive entry "${name}" cannot be read: ${error.message}`));
      else resolve(stream);
    });
  });
}

/** The error for an archive that inflates past its limit. */
function tooLarge(
  byRatio: boolean,
  limits: Required<ExtractArchiveOptions>,
  maxBytes: number,
): ConversionError {
  return byRatio
    ? new ConversionError(
        `Archive expands more than ${limits.maxRatio}:1 (over ${formatBytes(maxBytes)}); refusing a zip bomb`,
      )
    : new ConversionError(`Archive expands beyond the ${formatBytes(maxBytes)} limit`);
}

/** Bytes as a short human-readable size. */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}
