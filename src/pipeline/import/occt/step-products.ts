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
