import type sharp from 'sharp';

let sharpModule: Promise<typeof sharp> | undefined;

/**
 * sharp, loaded on first use: it brings a native library, so only the work that touches an image (a texture to
 * convert, maps to pack) pays for it.
 */
export function loadSharp(): Promise<typeof sharp> {
  sharpModule ??= import('sharp').then((module) => module.default);
  return sharpModule;
}
