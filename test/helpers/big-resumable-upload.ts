import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { tusClient, uploadIdOf } from './tus-client.ts';

/** Bytes of one binary STL triangle: normal, three corners, attribute count. */
const TRIANGLE_BYTES = 50;
const HEADER_BYTES = 84;

/**
 * A binary STL of `triangles` flat triangles that is never held in memory: any byte range of it streams from
 * one small repeating buffer, so a test can send a few hundred megabytes in pieces.
 */
export function generatedStl(triangles: number) {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('generated binary STL', 0, 'ascii');
  header.writeUInt32LE(triangles, 80);
  const triangle = Buffer.alloc(TRIANGLE_BYTES);
  // Corners (0,0,0), (1,0,0), (0,1,0); normal +z.
  triangle.writeFloatLE(1, 8);
  triangle.writeFloatLE(1, 24);
  triangle.writeFloatLE(1, 40);
  const repeated = Buffer.concat(Array.from({ length: 1311 }, () => triangle)); // 64 KiB and a little
  const length = HEADER_BYTES + triangles * TRIANGLE_BYTES;
  return {
    length,
    /** The bytes from `start` up to (not including) `end`. */
    range(start: number, end = length): Readable {
      return Readable.from(
        (function* () {
          let at = start;
          if (at < HEADER_BYTES) {
            yield header.subarray(at, Math.min(HEADER_BYTES, end));
            at = HEADER_BYTES;
          }
          while (at < end) {
            const phase = (at - HEADER_BYTES) % TRIANGLE_BYTES;
            const piece = repeated.subarray(
              phase,
              phase + Math.min(end - at, repeated.length - TRIANGLE_BYTES),
            );
            yield piece;
            at += piece.length;
          }
        })(),
      );
    },
  };
}

/** What {@link runBigResumableUpload} measured. */
export interface BigUploadResult {
  uploadId: string;
  length: number;
  /** Where the server stood after the cut; the rest was sent from there. */
  offsetAfterCut: number;
  /** Highest resident memory seen while the bytes streamed, minus the resident memory before. */
  rssGrowthBytes: number;
  durationMs: number;
}

/**
 * Sends a generated binary STL of about `approximateBytes` to the tus endpoint at `baseUrl` in one PATCH that
 * loses its connection at about half, then resumes from the offset HEAD reports, sampling this process's RSS
 * all along (the server runs in the same process, so the figure bounds the server's own growth).
 */
export async function runBigResumableUpload(
  baseUrl: string,
  headers: Record<string, string>,
  approximateBytes: number,
): Promise<BigUploadResult> {
  const stl = generatedStl(Math.floor((approximateBytes - HEADER_BYTES) / TRIANGLE_BYTES));
  const tus = tusClient(baseUrl, headers);
  const started = Date.now();
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      await sleep(20);
    }
  })();
  try {
    const created = await tus.create(stl.length, { filename: 'generated.stl' });
    if (created.status !== 201) throw new Error(`creation answered ${created.status}: ${created.text}`);
    await tus.patch(created.location, 0, stl.range(0), {
      contentLength: stl.length,
      dropAfterBytes: Math.floor(stl.length / 2),
    });
    const { offset } = await tus.head(created.location);
    const rest = await tus.patch(created.location, offset, stl.range(offset), {
      contentLength: stl.length - offset,
    });
    if (rest?.status !== 204) throw new Error(`the resumed PATCH answered ${rest?.status}: ${rest?.text}`);
    return {
      uploadId: uploadIdOf(created.location),
      length: stl.length,
      offsetAfterCut: offset,
      rssGrowthBytes: rssPeak - rssBefore,
      durationMs: Date.now() - started,
    };
  } finally {
    sampling = false;
    await sampler;
  }
}
