import type { FileHandle } from 'node:fs/promises';
import { hasByteOrderMark } from '../ascii-numbers.ts';

/** One chunk of a text file that ends at a line end, so no statement is split between two chunks. */
export interface LineChunk {
  /** The chunk's bytes are `bytes[0 … end)`; the buffer is reused for the next chunk. */
  bytes: Buffer;
  end: number;
  /** Offset in the file of `bytes[0]`. */
  fileOffset: number;
  /** The last chunk: it ends where the file ends, with or without a line end. */
  last: boolean;
}

/** Options of {@link readLineChunks}. */
export interface LineChunkOptions {
  /** Bytes read per chunk (a longer line grows the buffer). */
  chunkBytes: number;
  /** Longest line accepted; a file with a longer one is not text, and reading it whole would not be bounded. */
  maxLineBytes: number;
}

/** A line longer than {@link LineChunkOptions.maxLineBytes}, at a file offset. */
export class LineTooLongError extends Error {
  constructor(readonly fileOffset: number) {
    super(`a line at byte ${fileOffset} is too long`);
  }
}

/**
 * Reads a text file of `size` bytes in chunks of whole lines: memory stays at one chunk (plus the longest line)
 * whatever the file's size. Every line ends in `\n` as the caller sees it: a lone `\r` (old Mac files) becomes
 * `\n`, and a UTF-8 byte-order mark at the start becomes spaces, keeping every byte where it was. Lines continued
 * by a trailing backslash are joined next, the backslash and line end becoming spaces, so a continued statement
 * always lies in one chunk.
 */
export async function* readLineChunks(
  handle: FileHandle,
  size: number,
  options: LineChunkOptions,
): AsyncGenerator<LineChunk> {
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(options.chunkBytes, size)));
  let filled = 0;
  let fileOffset = 0;
  let readAt = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (buffer.length >= options.maxLineBytes) throw new LineTooLongError(fileOffset);
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, options.maxLineBytes));
      buffer.copy(grown, 0, 0, filled);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, readAt);
    readAt += bytesRead;
    const end = filled + bytesRead;
    const last = bytesRead === 0 || readAt >= size;
    if (fileOffset === 0 && filled === 0) blankByteOrderMark(buffer, end);
    endLonelyCarriageReturns(buffer, end, last);
    joinContinuedLines(buffer, end);
    const cut = last ? end : buffer.lastIndexOf(0x0a, end - 1) + 1;
    if (cut === 0 && !last) {
      filled = end;
      continue;
    }
    yield { bytes: buffer, end: cut, fileOffset, last };
    if (last) return;
    buffer.copy(buffer, 0, cut, end);
    filled = end - cut;
    fileOffset += cut;
  }
}

/** Turns every backslash that ends a line, with its line end, into spaces. */
function joinContinuedLines(bytes: Buffer, end: number): void {
  for (let at = bytes.indexOf(0x5c); at >= 0 && at < end; at = bytes.indexOf(0x5c, at + 1)) {
    if (bytes[at + 1] === 0x0a && at + 1 < end) bytes.fill(0x20, at, at + 2);
    else if (bytes[at + 1] === 0x0d && bytes[at + 2] === 0x0a && at + 2 < end) bytes.fill(0x20, at, at + 3);
  }
}

/** Turns a UTF-8 byte-order mark at the start of the file into spaces, which every statement may start with. */
function blankByteOrderMark(bytes: Buffer, end: number): void {
  if (end >= 3 && hasByteOrderMark(bytes)) bytes.fill(0x20, 0, 3);
}

/**
 * Turns every `\r` not followed by `\n` into `\n`. A `\r` that ends what has been read so far waits for the next
 * read (the cut is made before it), unless the file ends there.
 */
function endLonelyCarriageReturns(bytes: Buffer, end: number, last: boolean): void {
  for (let at = bytes.indexOf(0x0d); at >= 0 && at < end; at = bytes.indexOf(0x0d, at + 1)) {
    if (at + 1 < end) {
      if (bytes[at + 1] !== 0x0a) bytes[at] = 0x0a;
    } else if (last) {
      bytes[at] = 0x0a;
    }
  }
}
