import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createZipWriter } from '../../writers/zip-writer.ts';

/** One file to pack: its bytes on disk, its name inside the zip and what was counted as it arrived. */
export interface FileToPack {
  /** Path inside the archive, `/`-separated. */
  name: string;
  /** Where the bytes are. */
  path: string;
  size: number;
  /** CRC-32 of the bytes. */
  crc32: number;
}

/** The error of a pack that would exceed what a zip without Zip64 holds. */
export class PackTooLargeError extends Error {}

/**
 * Packs files into a zip at `target`, each stored as it is (no compression: textures are compressed already, and
 * the zip is unpacked once per conversion), streamed from disk so no file is held in memory. The CRC of each file
 * is given, counted when it was received. Without Zip64: more than 4 GiB is refused with {@link PackTooLargeError}.
 * Returns the zip's size in bytes.
 */
export async function packFiles(files: readonly FileToPack[], target: string): Promise<number> {
  const out = createWriteStream(target);
  const zip = createZipWriter({
    tooLarge: () =>
      new PackTooLargeError('The files are larger than 4 GiB together, more than one upload can hold'),
  });
  try {
    for (const file of files) {
      await write(out, zip.header({ ...file, storedSize: file.size, method: 0 }));
      for await (const chunk of createReadStream(file.path)) await write(out, chunk as Buffer);
    }
    await write(out, zip.end());
    out.end();
    await once(out, 'finish');
    return zip.size;
  } catch (error) {
    out.destroy();
    throw error;
  }
}

/** Writes a chunk, waiting for the stream to drain when it asks to. */
async function write(out: WriteStream, chunk: Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}
