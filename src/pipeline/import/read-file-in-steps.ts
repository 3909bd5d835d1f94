import { open } from 'node:fs/promises';

/** Bytes read between two progress reports. */
const STEP_BYTES = 16 << 20;

/**
 * Reads a whole file into one buffer, `stepBytes` at a time, telling `onFraction` how much is read after each
 * step: one `readFile` of a gigabyte says nothing for seconds.
 */
export async function readFileInSteps(
  file: string,
  onFraction: (fraction: number) => void,
  stepBytes = STEP_BYTES,
): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, Math.min(stepBytes, size - at), at);
      // A file that shrank while being read ends where it ends.
      if (bytesRead === 0) break;
      at += bytesRead;
      onFraction(at / size);
    }
    return at < size ? bytes.subarray(0, at) : bytes;
  } finally {
    await handle.close();
  }
}
