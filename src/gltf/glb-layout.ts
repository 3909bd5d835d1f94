import type { Accessor, GLTF, TypedArray } from '@gltf-transform/core';

/** Buffer views start on 8 bytes, enough for every component type and for the images the writer aligns so. */
const VIEW_ALIGNMENT = 8;

/** The binary chunk of a GLB, laid out but not yet copied. */
export interface BinaryLayout {
  byteLength: number;
  /** Copies the chunk into `target` (at least `byteLength` long, zeroed), calling `onStep` after every `stepBytes`. */
  copyInto(target: Uint8Array, stepBytes: number, onStep: () => void): void;
}

/** Bytes to place at an offset of the binary chunk. */
interface Piece {
  bytes: Uint8Array;
  at: number;
}

/**
 * Lays out the binary chunk of a GLB whose JSON was written with stand-ins for its large accessors (see
 * `stand-in-accessors.ts`), once the stand-ins are restored: each stand-in accessor gets its real count, name and
 * bounds, its buffer view grows to the real data, and the views after it move along. `json` is changed in place;
 * `smallBin` is the writer's binary chunk, from which everything that is not a stand-in is copied. `onStep` is
 * called after each bound computed.
 */
export function layOutBinaryChunk(
  json: GLTF.IGLTF,
  smallBin: Uint8Array,
  standIns: ReadonlyMap<string, Accessor>,
  onStep: () => void,
): BinaryLayout {
  if (standIns.size === 0)
    return { byteLength: smallBin.byteLength, copyInto: (target) => target.set(smallBin) };
  const views = json.bufferViews ?? [];
  const realArrays = new Map<GLTF.IAccessor, TypedArray>();
  const accessorsOfView = new Map<number, GLTF.IAccessor[]>();
  for (const accessor of json.accessors ?? []) {
    const real = accessor.name === undefined ? undefined : standIns.get(accessor.name);
    if (real) {
      restoreAccessor(accessor, real);
      realArrays.set(accessor, real.getArray()!);
      if (accessor.min) onStep();
    }
    if (accessor.bufferView === undefined) continue;
    const list = accessorsOfView.get(accessor.bufferView) ?? [];
    list.push(accessor);
    accessorsOfView.set(accessor.bufferView, list);
  }

  const pieces: Piece[] = [];
  let cursor = 0;
  const inOrder = views
    .map((view, index) => ({ view, index }))
    .sort((a, b) => (a.view.byteOffset ?? 0) - (b.view.byteOffset ?? 0));
  for (const { view, index } of inOrder) {
    const oldStart = view.byteOffset ?? 0;
    const start = alignUp(cursor, VIEW_ALIGNMENT);
    const accessors = (accessorsOfView.get(index) ?? []).sort(
      (a, b) => (a.byteOffset ?? 0) - (b.byteOffset ?? 0),
    );
    if (!accessors.some((accessor) => realArrays.has(accessor))) {
      pieces.push({ bytes: smallBin.subarray(oldStart, oldStart + view.byteLength), at: start });
    } else {
      if (accessors.length > 1 && view.byteStride !== undefined) {
        throw new Error('glb-layout: a stand-in accessor shares an interleaved buffer view');
      }
      let inner = 0;
      accessors.forEach((accessor, i) => {
        const from = accessor.byteOffset ?? 0;
        const to = i + 1 < accessors.length ? (accessors[i + 1].byteOffset ?? 0) : view.byteLength;
        const real = realArrays.get(accessor);
        const bytes = real
          ? new Uint8Array(real.buffer, real.byteOffset, real.byteLength)
          : smallBin.subarray(oldStart + from, oldStart + to);
        accessor.byteOffset = inner;
        pieces.push({ bytes, at: start + inner });
        inner = alignUp(inner + bytes.byteLength, 4);
      });
      view.byteLength = inner;
    }
    view.byteOffset = start;
    cursor = start + view.byteLength;
  }
  if (json.buffers?.[0]) json.buffers[0].byteLength = cursor;

  return {
    byteLength: cursor,
    copyInto(target, stepBytes, step) {
      let sinceStep = 0;
      for (const { bytes, at } of pieces) {
        for (let from = 0; from < bytes.byteLength; from += stepBytes) {
          const slice = bytes.subarray(from, Math.min(bytes.byteLength, from + stepBytes));
          target.set(slice, at + from);
          sinceStep += slice.byteLength;
          if (sinceStep >= stepBytes) {
            sinceStep = 0;
            step();
          }
        }
      }
    },
  };
}

/** Gives a stand-in's JSON its accessor's real name, count and (where the writer gave bounds) bounds. */
function restoreAccessor(json: GLTF.IAccessor, accessor: Accessor): void {
  if (accessor.getName()) json.name = accessor.getName();
  else delete json.name;
  json.count = accessor.getCount();
  // As the writer computes them, from the accessor itself.
  if (json.min && json.max) {
    json.max = accessor.getMax([]).map(Math.fround);
    json.min = accessor.getMin([]).map(Math.fround);
  }
}

function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
