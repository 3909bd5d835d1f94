import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { ConversionError } from '../types.ts';

/** One entry of a zip's central directory, with its name decoded but not yet judged safe. */
export interface ArchiveEntry {
  /** Name as stored, decoded (UTF-8 when flagged, else Latin-1) with `\` turned into `/`. */
  name: string;
  /** The entry is a folder. */
  directory: boolean;
  /** The entry is a Unix symbolic link. */
  symlink: boolean;
  /** The yauzl entry, to open its data. */
  raw: Entry;
}

/** Opens a zip for reading entry by entry; names are left raw so unsafe ones reach our own checks. */
export function openArchive(zipPath: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // decodeStrings: false stops yauzl rejecting `../` names itself, so the user gets our message naming the entry.
    yauzl.open(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: false }, (error, zip) => {
      if (error || !zip)
        reject(new ConversionError(`Invalid zip archive: ${error?.message ?? 'unreadable'}`));
      else resolve(zip);
    });
  });
}

/** Yields the entries of an open zip in central-directory order. */
export async function* archiveEntries(zip: ZipFile): AsyncGenerator<ArchiveEntry> {
  for (;;) {
    const raw = await new Promise<Entry | undefined>((resolve, reject) => {
      const onEntry = (entry: Entry): void => {
        zip.off('end', onEnd).off('error', onError);
        resolve(entry);
      };
      const onEnd = (): void => {
        zip.off('entry', onEntry).off('error', onError);
        resolve(undefined);
      };
      const onError = (error: Error): void => {
        zip.off('entry', onEntry).off('end', onEnd);
        reject(new ConversionError(`Invalid zip archive: ${error.message}`));
      };
      zip.once('entry', onEntry).once('end', onEnd).once('error', onError);
      zip.readEntry();
    });
    if (!raw) return;
    const name = decodeName(raw);
    const mode = (raw.externalFileAttributes >>> 16) & 0o170000;
    yield { name, directory: name.endsWith('/'), symlink: mode === 0o120000, raw };
  }
}

/** Most entries an archive may hold; the extraction refuses more too. */
export const MAX_ARCHIVE_ENTRIES = 10_000;

/** The refusal of an archive holding more than `limit` entries. */
export function tooManyEntries(count: number, limit: number): ConversionError {
  return new ConversionError(`Archive holds ${count} entries, more than the limit of ${limit}`);
}

/**
 * Lists the entries of a zip from its central directory, without inflating anything. An archive of more than
 * `maxEntries` is refused from the count its directory declares, before a single entry is read (listing a
 * million entries took 35–50 s and a gigabyte), and the count is checked again while listing.
 */
export async function listArchive(
  zipPath: string,
  maxEntries = MAX_ARCHIVE_ENTRIES,
): Promise<ArchiveEntry[]> {
  const zip = await openArchive(zipPath);
  try {
    if (zip.entryCount > maxEntries) throw tooManyEntries(zip.entryCount, maxEntries);
    const entries: ArchiveEntry[] = [];
    for await (const entry of archiveEntries(zip)) {
      if (entries.length >= maxEntries) throw tooManyEntries(entries.length + 1, maxEntries);
      entries.push(entry);
    }
    return entries;
  } finally {
    zip.close();
  }
}

/** Decodes a raw entry name the way zip tools do. */
function decodeName(entry: Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  const utf8 = (entry.generalPurposeBitFlag & 0x800) !== 0;
  return raw.toString(utf8 ? 'utf8' : 'latin1').replace(/\\/g, '/');
}
