import { crc32, deflateRawSync } from 'node:zlib';

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

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Header id of the padding extra field (the one Pixar's usdzip writes). */
const PADDING_FIELD = 0x1986;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** 1980-01-01 00:00, so the same content always gives the same bytes. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const MAX_ZIP32 = 0xffffffff;

/**
 * Writes a zip archive in memory, files in the order given. Without Zip64: an archive over 4 GiB is refused with a
 * clear error rather than written broken.
 */
export function writeZip(files: readonly ZipFile[], options: WriteZipOptions): Uint8Array {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const file of files) {
    const name = encoder.encode(file.name);
    const crc = crc32(file.data);
    const deflated = options.deflate ? deflateRawSync(file.data) : undefined;
    const useDeflate = deflated !== undefined && deflated.byteLength < file.data.byteLength;
    const stored = useDeflate ? deflated : file.data;
    const method = useDeflate ? 8 : 0;
    const extra = padding(offset + 30 + name.byteLength, options.align);

    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, LOCAL_HEADER, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, UTF8_NAMES, true);
    local.setUint16(8, method, true);
    local.setUint16(10, 0, true);
    local.setUint16(12, DOS_DATE, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, stored.byteLength, true);
    local.setUint32(22, file.data.byteLength, true);
    local.setUint16(26, name.byteLength, true);
    local.setUint16(28, extra.byteLength, true);

    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, CENTRAL_HEADER, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(8, UTF8_NAMES, true);
    entry.setUint16(10, method, true);
    entry.setUint16(12, 0, true);
    entry.setUint16(14, DOS_DATE, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, stored.byteLength, true);
    entry.setUint32(24, file.data.byteLength, true);
    entry.setUint16(28, name.byteLength, true);
    entry.setUint32(42, offset, true);
    central.push(new Uint8Array(entry.buffer), name);

    chunks.push(new Uint8Array(local.buffer), name, extra, stored);
    offset += 30 + name.byteLength + extra.byteLength + stored.byteLength;
    if (offset > MAX_ZIP32)
      throw new Error('The export is larger than 4 GiB, which a zip without Zip64 cannot hold');
  }
  const centralSize = central.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, END_OF_CENTRAL_DIRECTORY, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  return concat([...chunks, ...central, new Uint8Array(end.buffer)]);
}

/** An extra field that moves the data start (`dataStart` without it) to the next multiple of `align`. */
function padding(dataStart: number, align: number | undefined): Uint8Array {
  if (!align || dataStart % align === 0) return new Uint8Array(0);
  let size = align - (dataStart % align);
  // The field needs 4 bytes of its own header.
  if (size < 4) size += align;
  const field = new Uint8Array(size);
  const view = new DataView(field.buffer);
  view.setUint16(0, PADDING_FIELD, true);
  view.setUint16(2, size - 4, true);
  return field;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
