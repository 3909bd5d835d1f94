// The one encoder of zip records, shared by the archives built in memory (exports, BCF) and those streamed to disk
// (an upload's files packed together): each keeps its bytes where it likes and asks this for the headers between.

/** An entry as its headers describe it. */
export interface ZipEntry {
  /** Path inside the archive, `/`-separated. */
  name: string;
  /** CRC-32 of the bytes once unpacked. */
  crc32: number;
  /** Bytes once unpacked. */
  size: number;
  /** Bytes as stored in the archive: `size` when stored as is. */
  storedSize: number;
  /** Deflated (8) or stored as is (0). */
  method: 0 | 8;
}

/** Options of {@link createZipWriter}. */
export interface ZipWriterOptions {
  /** Start each entry's data at a multiple of this many bytes (USDZ: 64), padding the local header's extra field. */
  align?: number;
  /** The error to throw when the archive would pass 4 GiB, which a zip without Zip64 cannot hold. */
  tooLarge: () => Error;
}

/** A zip being written: each entry's header goes just before its stored bytes, the end after the last entry. */
export interface ZipWriter {
  /** The local header of the next entry (name and padding included); its stored bytes must follow it. */
  header(entry: ZipEntry): Uint8Array;
  /** The central directory and its end record, which close the archive. */
  end(): Uint8Array;
  /** Bytes written so far, counting the stored bytes each header announced. */
  readonly size: number;
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
/** Version 2.0: deflate, folders; all this writer uses. */
const ZIP_VERSION = 20;

/**
 * Starts a zip archive, entries in the order their headers are asked for. Without Zip64: an archive over 4 GiB is
 * refused with `tooLarge` before its bytes are written rather than written broken.
 */
export function createZipWriter(options: ZipWriterOptions): ZipWriter {
  const encoder = new TextEncoder();
  const central: Uint8Array[] = [];
  let offset = 0;
  let count = 0;
  return {
    header(entry) {
      const name = encoder.encode(entry.name);
      const extra = padding(offset + 30 + name.byteLength, options.align);
      const headerSize = 30 + name.byteLength + extra.byteLength;
      if (offset + headerSize + entry.storedSize > MAX_ZIP32) throw options.tooLarge();
      const local = new Uint8Array(headerSize);
      const view = new DataView(local.buffer);
      view.setUint32(0, LOCAL_HEADER, true);
      view.setUint16(4, ZIP_VERSION, true);
      describeEntry(view, 6, entry, name.byteLength);
      view.setUint16(28, extra.byteLength, true);
      local.set(name, 30);
      local.set(extra, 30 + name.byteLength);

      const record = new Uint8Array(46 + name.byteLength);
      const recordView = new DataView(record.buffer);
      recordView.setUint32(0, CENTRAL_HEADER, true);
      recordView.setUint16(4, ZIP_VERSION, true);
      recordView.setUint16(6, ZIP_VERSION, true);
      describeEntry(recordView, 8, entry, name.byteLength);
      recordView.setUint32(42, offset, true);
      record.set(name, 46);
      central.push(record);

      offset += headerSize + entry.storedSize;
      count += 1;
      return local;
    },
    end() {
      const directorySize = central.reduce((sum, record) => sum + record.byteLength, 0);
      if (offset + directorySize > MAX_ZIP32) throw options.tooLarge();
      const end = new DataView(new ArrayBuffer(22));
      end.setUint32(0, END_OF_CENTRAL_DIRECTORY, true);
      end.setUint16(8, count, true);
      end.setUint16(10, count, true);
      end.setUint32(12, directorySize, true);
      end.setUint32(16, offset, true);
      const closing = concatBytes([...central, new Uint8Array(end.buffer)]);
      offset += closing.byteLength;
      return closing;
    },
    get size() {
      return offset;
    },
  };
}

/**
 * Writes the fields a local header and a central record share, in the same order, from `at` (6 in a local header,
 * 8 in a central record): flags, method, time, date, CRC, both sizes and the name's length.
 */
function describeEntry(view: DataView, at: number, entry: ZipEntry, nameLength: number): void {
  view.setUint16(at, UTF8_NAMES, true);
  view.setUint16(at + 2, entry.method, true);
  view.setUint16(at + 4, 0, true);
  view.setUint16(at + 6, DOS_DATE, true);
  view.setUint32(at + 8, entry.crc32 >>> 0, true);
  view.setUint32(at + 12, entry.storedSize, true);
  view.setUint32(at + 16, entry.size, true);
  view.setUint16(at + 20, nameLength, true);
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

/** The chunks one after another in one array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
