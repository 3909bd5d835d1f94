import { Primitive, PropertyType } from '@gltf-transform/core';
import type { Accessor, Document, Transform, TypedArray } from '@gltf-transform/core';
import { createTransform, prune } from '@gltf-transform/functions';
import type { MeshoptEncoder } from 'meshoptimizer';

/** Step name used in logs. */
export const NAME = 'linear-reorder';

/** Options of {@link linearReorder}. */
export interface LinearReorderOptions {
  /** meshoptimizer's encoder (or one that reorders in pieces), awaited `ready` before use. */
  encoder: typeof MeshoptEncoder;
  /** Order for transmission size (the web's case) or for the GPU's vertex cache. */
  target: 'size' | 'performance';
  /** Called every {@link PROGRESS_EVERY} accessors rewritten, so a model of many parts is heard from. */
  onProgress?: () => void;
}

/** Defaults for {@link LinearReorderOptions} (the encoder must be given). */
export const LINEAR_REORDER_DEFAULTS: Omit<LinearReorderOptions, 'encoder'> = { target: 'size' };

/** Accessors (index lists and attributes) rewritten between two progress calls. */
const PROGRESS_EVERY = 1024;

/**
 * glTF-Transform's `reorder`, in time linear in the number of primitives: vertices and triangles of every indexed
 * primitive put in the order that compresses best, one reorder per index list, its remap applied to every
 * attribute used with it. `reorder` swaps each attribute into every primitive that shares the index list, so an
 * index list that dedup made common to N parts (N boxes of the same topology) costs N² swaps, minutes for 10,000
 * parts; here each attribute is swapped only into the primitives that hold it. The result is `reorder`'s.
 */
export function linearReorder(
  options: Partial<LinearReorderOptions> & Pick<LinearReorderOptions, 'encoder'>,
): Transform {
  const settings: LinearReorderOptions = { ...LINEAR_REORDER_DEFAULTS, ...options };
  return createTransform(NAME, async (document: Document): Promise<void> => {
    if (document.hasExtension('KHR_mesh_primitive_restart'))
      throw new Error(`${NAME}: KHR_mesh_primitive_restart is not supported`);
    await settings.encoder.ready;
    const plan = planLayout(document);
    let done = 0;
    // One index list may serve thousands of parts: progress counts the accessors rewritten, not the lists.
    const rewritten = () => {
      if (++done % PROGRESS_EVERY === 0) settings.onProgress?.();
    };
    for (const [indices, users] of plan) {
      let array = indices.getArray()!;
      array = array instanceof Uint32Array ? array.slice() : new Uint32Array(array);
      const [remap, unique] = settings.encoder.reorderMesh(
        array,
        users.mode === Primitive.Mode.TRIANGLES,
        settings.target === 'size',
      );
      const reordered = cloneShape(document, indices).setArray(
        unique <= 65534 ? new Uint16Array(array) : (array as Uint32Array<ArrayBuffer>),
      );
      for (const primitive of users.primitives) primitive.swap(indices, reordered);
      rewritten();
      for (const [attribute, holders] of users.attributes) {
        const compacted = cloneShape(document, attribute).setArray(
          remapVertices(attribute.getArray()!, attribute.getElementSize(), remap, unique),
        );
        for (const primitive of holders) {
          primitive.swap(attribute, compacted);
          for (const target of primitive.listTargets()) target.swap(attribute, compacted);
        }
        rewritten();
      }
    }
    // The replaced accessors are left unused.
    await document.transform(
      prune({ propertyTypes: [PropertyType.ACCESSOR], keepAttributes: true, keepIndices: true }),
    );
    if (plan.size === 0) document.getLogger().warn(`${NAME}: no indexed primitives to reorder`);
  });
}

/** The primitives using one index list, and each attribute they use with it, with the primitives holding it. */
interface IndexUsers {
  mode: number;
  primitives: Primitive[];
  attributes: Map<Accessor, Primitive[]>;
}

/** Every index list with its primitives and their attributes (morph targets' included), in document order. */
function planLayout(document: Document): Map<Accessor, IndexUsers> {
  const plan = new Map<Accessor, IndexUsers>();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const indices = primitive.getIndices();
      if (!indices) continue;
      let users = plan.get(indices);
      if (!users) plan.set(indices, (users = { mode: 0, primitives: [], attributes: new Map() }));
      // As in `reorder`, the last primitive listed decides whether the list is read as triangles.
      users.mode = primitive.getMode();
      users.primitives.push(primitive);
      const attributes = new Set(primitive.listAttributes());
      for (const target of primitive.listTargets())
        for (const attribute of target.listAttributes()) attributes.add(attribute);
      for (const attribute of attributes) {
        const holders = users.attributes.get(attribute);
        if (holders) holders.push(primitive);
        else users.attributes.set(attribute, [primitive]);
      }
    }
  }
  return plan;
}

/** A new accessor with the same name, type, buffer, normalization and sparseness, and (for now) the same array. */
function cloneShape(document: Document, accessor: Accessor): Accessor {
  return document
    .createAccessor(accessor.getName())
    .setArray(accessor.getArray())
    .setType(accessor.getType())
    .setBuffer(accessor.getBuffer())
    .setNormalized(accessor.getNormalized())
    .setSparse(accessor.getSparse());
}

/** A vertex array in its new order: vertex `v` moves to `remap[v]`; vertices no triangle uses (remapped past `count`) go. */
function remapVertices(source: TypedArray, size: number, remap: Uint32Array, count: number): TypedArray {
  const Array = source.constructor as new (length: number) => TypedArray;
  const target = new Array(count * size);
  for (let vertex = 0; vertex < remap.length; vertex++) {
    const to = remap[vertex];
    if (to >= count) continue;
    for (let k = 0; k < size; k++) target[to * size + k] = source[vertex * size + k];
  }
  return target;
}
