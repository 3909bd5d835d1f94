import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { AsciiReader, hasByteOrderMark } from '../ascii-numbers.ts';
import { checkTriangleLimit } from '../../limits.ts';
import { meshDocument } from '../mesh-document.ts';
import { TriangleList } from '../triangle-list.ts';
import { ConversionError } from '../../types.ts';
import type { ImportResult, ImportSource, Importer, StepContext } from '../../types.ts';
import { VertexWelder } from '../vertex-welder.ts';

/** Step name used in logs. */
export const NAME = 'import-stl';

const HEADER_BYTES = 84;
const RECORD_BYTES = 50;
/** Binary triangles read per chunk: about 16 MB, a progress report each. */
const CHUNK_RECORDS = 320_000;

const fail = (reason: string) => new ConversionError(`Could not read the STL file: ${reason}`);

/**
 * Reads binary and ASCII STL in JavaScript: binary files stream through in 16 MB chunks, ASCII is parsed from
 * the bytes without a string copy; corners are welded as they are read, so memory stays near 18 bytes per
 * triangle (plus one chunk). Facet normals are dropped: they are flat, which viewers draw from the positions.
 */
export const importStl: Importer = {
  name: NAME,
  formats: ['stl'],
  async read(source, context) {
    const size = await stat(source.file).then(
      (s) => s.size,
      () => {
        throw fail('the file cannot be opened');
      },
    );
    if (size === 0) throw fail('the file is empty');
    const head = await readHead(source.file, Math.min(size, 512));
    const declared =
      size >= HEADER_BYTES ? new DataView(head.buffer, head.byteOffset).getUint32(80, true) : -1;
    const binarySize = HEADER_BYTES + declared * RECORD_BYTES;
    const ascii = size !== binarySize && looksAscii(head);
    const result = ascii
      ? await readAscii(source, context)
      : await readBinary(source, size, declared, context);
    if (result.triangles === 0) throw fail('no geometry found');
    const name = path.basename(source.file).replace(/\.[^.]+$/, '');
    const document = meshDocument({ name, positions: result.positions, indices: result.indices });
    context.logger.debug(`${NAME}: ${result.triangles} triangles, ${result.positions.length / 3} vertices`);
    context.onProgress?.(1);
    return {
      document,
      sourceTriangleCount: result.triangles,
      sourceUnit: 'unknown',
      sourceUpAxis: 'unknown',
      welded: true,
    } satisfies ImportResult;
  },
};

interface StlMesh {
  positions: Float32Array<ArrayBuffer>;
  indices: Uint32Array<ArrayBuffer>;
  /** Triangles in the file, degenerate ones included. */
  triangles: number;
}

async function readHead(file: string, length: number): Promise<Uint8Array> {
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** ASCII STL starts with `solid` (after a UTF-8 byte-order mark, if any) and its first bytes are text. */
function looksAscii(file: Uint8Array): boolean {
  const head = hasByteOrderMark(file) ? file.subarray(3) : file;
  const start = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1').trimStart();
  if (!/^solid(\s|$)/i.test(start)) return false;
  return head.every(
    (byte) => byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte < 0x7f),
  );
}

async function readBinary(
  source: ImportSource,
  size: number,
  declared: number,
  context: StepContext,
): Promise<StlMesh> {
  if (size < HEADER_BYTES) {
    throw fail(`the file is truncated (${size} bytes; a binary STL header alone is ${HEADER_BYTES})`);
  }
  const available = Math.floor((size - HEADER_BYTES) / RECORD_BYTES);
  if (available < declared) {
    throw fail(
      `the file is truncated: its header declares ${declared.toLocaleString('en-US')} triangles, ` +
        `the file holds ${available.toLocaleString('en-US')}`,
    );
  }
  if (declared === 0) throw fail('no geometry found');
  checkTriangleLimit(declared, context.maxTriangles);
  if (available > declared) {
    context.logger.warn(
      `${NAME}: ${size - HEADER_BYTES - declared * RECORD_BYTES} bytes after the last triangle ignored`,
    );
  }
  // Closed meshes have about half as many vertices as triangles.
  const welder = new VertexWelder(Math.ceil(declared * 0.6));
  const triangles = new TriangleList(declared);
  const handle = await open(source.file);
  try {
    const chunk = Buffer.alloc(Math.min(declared, CHUNK_RECORDS) * RECORD_BYTES);
    let done = 0;
    while (done < declared) {
      const records = Math.min(CHUNK_RECORDS, declared - done);
      const length = records * RECORD_BYTES;
      const { bytesRead } = await handle.read(chunk, 0, length, HEADER_BYTES + done * RECORD_BYTES);
      if (bytesRead < length) throw fail('the file is truncated (it ended while being read)');
      const view = new DataView(chunk.buffer, chunk.byteOffset, length);
      for (let record = 0; record < records; record++) {
        const at = record * RECORD_BYTES + 12;
        const a = welder.add(
          view.getFloat32(at, true),
          view.getFloat32(at + 4, true),
          view.getFloat32(at + 8, true),
        );
        const b = welder.add(
          view.getFloat32(at + 12, true),
          view.getFloat32(at + 16, true),
          view.getFloat32(at + 20, true),
        );
        const c = welder.add(
          view.getFloat32(at + 24, true),
          view.getFloat32(at + 28, true),
          view.getFloat32(at + 32, true),
        );
        triangles.add(a, b, c);
      }
      done += records;
      context.onProgress?.((done / declared) * 0.95);
    }
  } finally {
    await handle.close();
  }
  return { positions: welder.takePositions(), indices: triangles.take(), triangles: declared };
}

async function readAscii(source: ImportSource, context: StepContext): Promise<StlMesh> {
  const bytes = await readFile(source.file);
  const reader = new AsciiReader(bytes, hasByteOrderMark(bytes) ? 3 : 0);
  // About 250 bytes per facet in ASCII.
  const expected = Math.ceil(bytes.length / 250);
  const welder = new VertexWelder(expected);
  const triangles = new TriangleList(expected);
  const loop: number[] = [];
  let facets = 0;
  let ended = false;
  let nextReport = 1 << 24;
  reader.accept('solid');
  reader.skipLine();
  while (reader.skipSpace()) {
    if (reader.accept('vertex')) {
      const x = reader.number();
      const y = reader.number();
      const z = reader.number();
      if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z)) {
        if (!reader.skipSpace()) throw fail('the file is truncated (it ends inside a vertex)');
        throw damaged(bytes, reader.offset);
      }
      loop.push(welder.add(x, y, z));
    } else if (reader.accept('endloop')) {
      // A loop of more than three corners (rare) is a convex fan.
      for (let i = 2; i < loop.length; i++) triangles.add(loop[0], loop[i - 1], loop[i]);
      facets += Math.max(0, loop.length - 2);
      loop.length = 0;
      if (facets > (context.maxTriangles ?? Infinity)) checkTriangleLimit(facets, context.maxTriangles);
    } else if (reader.accept('endsolid')) {
      ended = true;
      reader.skipLine();
      // Some files hold several solids; they become one mesh.
      if (reader.skipSpace() && reader.accept('solid')) {
        ended = false;
        reader.skipLine();
      }
    } else if (reader.accept('facet') || reader.accept('outer') || reader.accept('endfacet')) {
      reader.skipLine();
    } else {
      throw damaged(bytes, reader.offset);
    }
    if (reader.offset > nextReport) {
      nextReport += 1 << 24;
      context.onProgress?.((reader.offset / bytes.length) * 0.95);
    }
  }
  if (!ended) throw fail('the file is truncated (it ends before `endsolid`)');
  return { positions: welder.takePositions(), indices: triangles.take(), triangles: facets };
}

function damaged(bytes: Uint8Array, offset: number): ConversionError {
  let line = 1;
  for (let at = bytes.indexOf(0x0a); at >= 0 && at < offset; at = bytes.indexOf(0x0a, at + 1)) line++;
  return fail(`the file is damaged (line ${line}: not an STL statement)`);
}
