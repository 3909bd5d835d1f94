import type { PartProperties } from '../../part-properties.ts';

/** A STEP `PRODUCT` entity: its id, name and description as the file gives them. */
export interface StepProduct {
  id: string;
  name: string;
  description: string;
}

/** The name OpenCASCADE writes for a shape that had none; it says nothing about the part. */
export const TRANSLATOR_NAME = /^Open CASCADE STEP translator\b/i;

/** A STEP string with its `''` escapes undone. */
function unquote(text: string): string {
  return text.slice(1, -1).replace(/''/g, "'");
}

const STRING = "'(?:[^']|'')*'";
const PRODUCT = new RegExp(
  `\\bPRODUCT\\s*\\(\\s*(${STRING})\\s*,\\s*(${STRING})\\s*,\\s*(${STRING}|\\$)`,
  'g',
);

/** Every `PRODUCT` of a STEP file, read from its text (OpenCASCADE only hands over names). */
export function readStepProducts(bytes: Uint8Array): StepProduct[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return [...text.matchAll(PRODUCT)].map(([, id, name, description]) => ({
    id: unquote(id!),
    name: unquote(name!),
    description: description === '$' ? '' : unquote(description!),
  }));
}

/**
 * Finds the product of each node OpenCASCADE hands over, which names a node after its product but gives no id.
 * Products that share a name are told apart by the node's geometry, `shape` (its meshes' vertex and index counts):
 * the instances of one product tessellate alike, so a name met again with a shape not seen before is the next
 * product of that name in file order. Products of one name and identical geometry stay indistinguishable and take
 * the first of them; a shape beyond the products of its name takes the last.
 */
export function stepProductMatcher(
  products: readonly StepProduct[],
): (name: string, shape: string) => StepProduct | undefined {
  const byName = new Map<string, StepProduct[]>();
  for (const product of products) {
    const name = product.name.trim();
    if (name !== '') byName.set(name, [...(byName.get(name) ?? []), product]);
  }
  const shapesOfName = new Map<string, string[]>();
  return (name, shape) => {
    const named = byName.get(name);
    if (!named) return undefined;
    const shapes = shapesOfName.get(name) ?? [];
    shapesOfName.set(name, shapes);
    let index = shapes.indexOf(shape);
    if (index < 0) index = shapes.push(shape) - 1;
    return named[Math.min(index, named.length - 1)];
  };
}

/**
 * The name a STEP part should carry: the OpenCASCADE placeholder gives way to the product's own id when that says
 * something, else to `fallback`.
 */
export function stepPartName(name: string, product: StepProduct | undefined, fallback: string): string {
  if (name !== '' && !TRANSLATOR_NAME.test(name)) return name;
  if (product && product.id.trim() !== '' && !TRANSLATOR_NAME.test(product.id)) return product.id.trim();
  return fallback;
}

/** A part's `Product` set: the id, name and description of its STEP product. */
export function productProperties(product: StepProduct): PartProperties {
  return {
    Product: {
      Id: product.id,
      Name: product.name,
      ...(product.description !== '' ? { Description: product.description } : {}),
    },
  };
}
