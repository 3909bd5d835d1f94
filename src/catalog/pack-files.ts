import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

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

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** 1980-01-01 00:00: packing the same files always gives the same bytes. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const MAX_ZIP32 = 0xffffffff;

/**
 * Packs files into a zip at `target`, each stored as it is (no compression: textures are compressed already, and
 * the zip is unpacked once per conversion), streamed from disk so no file is held in memory. The CRC of each file
 * is given, counted when it was received. Without Zip64: more than 4 GiB is refused with {@link PackTooLargeError}.
 */
export async function packFiles(files: readonly FileToPack[], target: string): Promise<number> {
  const out = createWriteStream(target);
  const central: Buffer[] = [];
  let offset = 0;
  try {
    for (const file of files) {
      const name = Buffer.from(file.name, 'utf8');
      if (offset + 30 + name.length + file.size > MAX_ZIP32)
        throw new PackTooLargeError(
          'The files are larger than 4 GiB together, more than one upload can hold',
        );
      const local = Buffer.alloc(30);
      local.writeUInt32LE(LOCAL_HEADER, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(UTF8_NAMES, 6);
      local.writeUInt16LE(0, 8);
      local.writeUInt16LE(0, 10);
      local.writeUInt16LE(DOS_DATE, 12);
      local.writeUInt32LE(file.crc32 >>> 0, 14);
      local.writeUInt32LE(file.size, 18);
      local.writeUInt32LE(file.size, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28);
      await write(out, local);
      await write(out, name);
      for await (const chunk of createReadStream(file.path)) await write(out, chunk as Buffer);

      const entry = Buffer.alloc(46);
      entry.writeUInt32LE(CENTRAL_HEADER, 0);
      entry.writeUInt16LE(20, 4);
      entry.writeUInt16LE(20, 6);
      entry.writeUInt16LE(UTF8_NAMES, 8);
      entry.writeUInt16LE(0, 10);
      entry.writeUInt16LE(0, 12);
      entry.writeUInt16LE(DOS_DATE, 14);
      entry.writeUInt32LE(file.crc32 >>> 0, 16);
      entry.writeUInt32LE(file.size, 20);
      entry.writeUInt32LE(file.size, 24);
      entry.writeUInt16LE(name.length, 28);
      entry.writeUInt32LE(offset, 42);
      central.push(entry, name);
      offset += 30 + name.length + file.size;
    }
    const directory = Buffer.concat(central);
    if (offset + directory.length > MAX_ZIP32)
      throw new PackTooLargeError('The files are larger than 4 GiB together, more than one upload can hold');
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
    end.writeUInt16LE(files.length, 8);
    end.writeUInt16LE(files.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    await write(out, directory);
    await write(out, end);
    out.end();
    await once(out, 'finish');
    return offset + directory.length + end.length;
  } catch (error) {
    out.destroy();
    throw error;
  }
}

/** Writes a chunk, waiting for the stream to drain when it asks to. */
async function write(out: WriteStream, chunk: Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}
