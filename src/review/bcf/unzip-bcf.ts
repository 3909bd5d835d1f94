import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { ApiError } from '../../http/api-error.ts';

/** Most entries a BCF zip may hold. */
export const MAX_BCF_ENTRIES = 20_000;
/** Most bytes one XML file of a BCF zip may inflate to. */
export const MAX_BCF_XML_BYTES = 5 * 1024 * 1024;
/** Most bytes all the XML files of a BCF zip may inflate to together. */
export const MAX_BCF_TOTAL_BYTES = 100 * 1024 * 1024;

// Only the XML is read; snapshots, documents and BIM snippets are left in the archive.
const XML_FILE = /(^|\/)(bcf\.version|markup\.bcf|[^/]+\.bcfv)$/i;

/**
 * The XML files of a BCF zip (`bcf.version`, `markup.bcf`, `*.bcfv`) by their path, decoded as UTF-8. A file that
 * is not a zip, holds too many entries or inflates past the limits is a 400.
 */
export async function unzipBcf(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, opened) => {
      if (error || !opened)
        reject(new ApiError(400, `The file is not a BCF zip: ${error?.message ?? 'unreadable'}`));
      else resolve(opened);
    });
  });
  if (zip.entryCount > MAX_BCF_ENTRIES) {
    zip.close();
    throw new ApiError(400, `The BCF zip holds ${zip.entryCount} entries, more than ${MAX_BCF_ENTRIES}`);
  }
  const files = new Map<string, string>();
  let total = 0;
  try {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      if (entry.fileName.endsWith('/') || !XML_FILE.test(entry.fileName)) continue;
      if (entry.uncompressedSize > MAX_BCF_XML_BYTES) {
        throw new ApiError(400, `${entry.fileName} is larger than ${MAX_BCF_XML_BYTES} bytes`);
      }
      total += entry.uncompressedSize;
      if (total > MAX_BCF_TOTAL_BYTES)
        throw new ApiError(400, `The BCF zip's XML is larger than ${MAX_BCF_TOTAL_BYTES} bytes`);
      files.set(entry.fileName, (await readEntry(zip, entry)).toString('utf8'));
    }
  } finally {
    zip.close();
  }
  return files;
}

function nextEntry(zip: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: Entry) => {
      zip.off('end', onEnd).off('error', onError);
      resolve(entry);
    };
    const onEnd = () => {
      zip.off('entry', onEntry).off('error', onError);
      resolve(undefined);
    };
    const onError = (error: Error) => {
      zip.off('entry', onEntry).off('end', onEnd);
      reject(new ApiError(400, `The BCF zip is damaged: ${error.message}`));
    };
    zip.once('entry', onEntry).once('end', onEnd).once('error', onError);
    zip.readEntry();
  });
}

function readEntry(zip: ZipFile, entry: Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream)
        return reject(new ApiError(400, `${entry.fileName} cannot be read: ${error?.message}`));
      const chunks: Buffer[] = [];
      // yauzl checks the inflated size against the declared one, so the limit above holds.
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (streamError) =>
        reject(new ApiError(400, `${entry.fileName} is damaged: ${streamError.message}`)),
      );
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}
