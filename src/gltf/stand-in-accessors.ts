import type { Accessor, Document, TypedArray } from '@gltf-transform/core';

/** Extensions whose writers read accessor data themselves (to compress it), so their accessors keep their arrays. */
const DATA_WRITING_EXTENSIONS = new Set(['EXT_meshopt_compression', 'KHR_draco_mesh_compression']);

/** Marks a stand-in's temporary accessor name; a NUL cannot come from a file's name of an accessor we keep. */
const STAND_IN_PREFIX = '\u0000stand-in:';

/** Large accessors swapped for one-element stand-ins, keyed by the temporary name each carries into the JSON. */
export interface StandIns {
  /** The swapped accessors; once `restore()` has run, each holds its real array and name again. */
  accessors: ReadonlyMap<string, Accessor>;
  /** Puts every real array and name back on its accessor. */
  restore(): void;
}

/**
 * Gives each accessor of at least `minBytes` a one-element array and a temporary name, so glTF-Transform's writer
 * writes its JSON without touching its data; the caller places the real arrays and calls `restore()`. Only
 * tightly packed, non-sparse accessors of a one-buffer document whose extensions do not rewrite accessor data are
 * swapped: their bytes go into the file exactly as they are in memory.
 */
export function standInLargeAccessors(document: Document, minBytes: number): StandIns {
  const root = document.getRoot();
  const accessors = new Map<string, Accessor>();
  const originals: { accessor: Accessor; array: TypedArray; name: string }[] = [];
  const eligible =
    root.listBuffers().length === 1 &&
    !root.listExtensionsUsed().some((extension) => DATA_WRITING_EXTENSIONS.has(extension.extensionName));
  if (eligible) {
    for (const accessor of root.listAccessors()) {
      const array = accessor.getArray();
      if (!array || array.byteLength < minBytes || accessor.getSparse() || !accessor.getBuffer()) continue;
      // The writer pads each element to 4 bytes in a vertex buffer view; such accessors are not copied as they are.
      if ((accessor.getElementSize() * accessor.getComponentSize()) % 4 !== 0) continue;
      const key = `${STAND_IN_PREFIX}${originals.length}`;
      originals.push({ accessor, array, name: accessor.getName() });
      accessors.set(key, accessor);
      const StandIn = array.constructor as new (length: number) => TypedArray;
      accessor.setArray(new StandIn(accessor.getElementSize())).setName(key);
    }
  }
  return {
    accessors,
    restore() {
      for (const { accessor, array, name } of originals) accessor.setArray(array).setName(name);
    },
  };
}
