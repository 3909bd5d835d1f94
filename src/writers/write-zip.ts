import { crc32, deflateRawSync } from 'node:zlib';
import { concatBytes, createZipWriter } from './zip-writer.ts';

/** One file of a zip. */
export interface ZipFile {
  /** Path inside the archive, `/`-separated. */
  name: string;
  data: Uint8Array;
}

/** Options of {@link writeZip}. */
export interface WriteZipOptions {
  /** Deflate each file (when that makes it smaller); false stores every file as is, as USDZ requires. */
  deflate: boolean;
  /** Start each file's data at a multiple of this many bytes (USDZ: 64), padding the local header's extra field. */
  align?: number;
}

/**
 * Writes a zip archive in memory, files in the order given. Without Zip64: an archive over 4 GiB is refused with a
 * clear error rather than written broken.
 */
export function writeZip(files: readonly ZipFile[], options: WriteZipOptions): Uint8Array {
  const zip = createZipWriter({
    align: options.align,
    tooLarge: () => new Error('The export is larger than 4 GiB, which a zip without Zip64 cannot hold'),
  });
  const chunks: Uint8Array[] = [];
  for (const file of files) {
    const deflated = options.deflate ? deflateRawSync(file.data) : undefined;
    const useDeflate = deflated !== undefined && deflated.byteLength < file.data.byteLength;
    const stored = useDeflate ? deflated : file.data;
    const entry = {
      name: file.name,
      crc32: crc32(file.data),
      size: file.data.byteLength,
      storedSize: stored.byteLength,
      method: useDeflate ? 8 : 0,
    } as const;
    chunks.push(zip.header(entry), stored);
  }
  chunks.push(zip.end());
  return concatBytes(chunks);
}
