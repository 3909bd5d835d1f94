import { countRuntimeLoad } from './runtime-loads.ts';

const MIB = 1024 * 1024;

/**
 * An importer's WebAssembly runtime (assimp, OpenCASCADE, web-ifc) is kept between imports, so that the next one
 * starts at once: compiling it again costs 50–130 ms for assimp and OpenCASCADE, and about 400 ms of a small
 * building's import for web-ifc. Its memory grows to fit what it read and never shrinks, and it would stay through
 * every later stage of the conversion. So a runtime is let go, once the import has copied out what it read, when
 * its memory passed {@link KEEP_RUNTIME_UP_TO_BYTES} or the input was at least {@link RELEASE_AFTER_INPUT_BYTES}.
 */
export const KEEP_RUNTIME_UP_TO_BYTES = 256 * MIB;

/**
 * The input size from which a runtime goes whatever its memory: web-ifc opens any file in 133 MiB and reaches 160
 * after a second one, whether that was a house of 4 MB or a building of 100,000 elements in 66 MB, so its memory
 * does not tell a big import from a small one.
 */
export const RELEASE_AFTER_INPUT_BYTES = 16 * MIB;

/** Bytes of an Emscripten module's memory, or Infinity where the module does not show it. */
export function runtimeMemoryBytes(module: unknown): number {
  const heap: unknown = (module as { HEAPU8?: unknown } | undefined)?.HEAPU8;
  return heap instanceof Uint8Array ? heap.byteLength : Infinity;
}

/** Whether a runtime that has just read `inputBytes` should be let go (see {@link KEEP_RUNTIME_UP_TO_BYTES}). */
export function releaseAfterImport(module: unknown, inputBytes: number): boolean {
  return inputBytes >= RELEASE_AFTER_INPUT_BYTES || runtimeMemoryBytes(module) > KEEP_RUNTIME_UP_TO_BYTES;
}

/**
 * One importer's WebAssembly runtime, kept between imports: loaded on first use (and counted, runtime-loads.ts),
 * and loaded afresh after a load that failed, a trap ({@link drop}) or a big import ({@link releaseAfter}).
 */
export class KeptRuntime<T> {
  #runtime: Promise<T> | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  /** The runtime, loaded now if none is kept. */
  get(): Promise<T> {
    if (!this.#runtime) {
      countRuntimeLoad();
      this.#runtime = this.load().catch((error: unknown) => {
        this.#runtime = undefined;
        throw error;
      });
    }
    return this.#runtime;
  }

  /** Lets the runtime go: after a trap its memory may be inconsistent, so the next import starts a new one. */
  drop(): void {
    this.#runtime = undefined;
  }

  /**
   * Lets the runtime go after an import of `inputBytes` when {@link releaseAfterImport} says so (`module` is what
   * shows its memory), then gives the event loop a turn: until it has turned, what the runtime left pending still
   * holds it, and no collection frees its memory (measured: web-ifc's stayed to the end of a conversion without it).
   */
  async releaseAfter(module: unknown, inputBytes: number): Promise<void> {
    if (!releaseAfterImport(module, inputBytes)) return;
    this.drop();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
