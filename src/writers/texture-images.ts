import type { Texture } from '@gltf-transform/core';
import { loadSharp } from '../gltf/load-sharp.ts';

/** An image in a type every export format takes (PNG or JPEG), with its file extension. */
export interface PortableImage {
  data: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg';
  extension: 'png' | 'jpg';
}

/** The metallic-roughness texture split into the single-channel images MTL's `map_Pr` and `map_Pm` name. */
export interface SplitMetallicRoughness {
  /** Roughness (glTF's green channel) times the roughness factor, as a grey PNG. */
  roughness: Uint8Array;
  /** Metalness (glTF's blue channel) times the metallic factor, as a grey PNG. */
  metallic: Uint8Array;
  /** Mean roughness over the image (factor applied), 0–1: the one number a reader without maps can use. */
  meanRoughness: number;
  /** Mean metalness over the image (factor applied), 0–1. */
  meanMetallic: number;
}

const PORTABLE: Record<string, PortableImage['extension']> = { 'image/png': 'png', 'image/jpeg': 'jpg' };

/**
 * The texture's image as PNG or JPEG: kept as is when it is one, re-encoded as PNG when sharp can decode it (WebP,
 * AVIF…), undefined when it cannot (KTX2, no image) and the texture has to be left out.
 */
export async function portableImage(texture: Texture): Promise<PortableImage | undefined> {
  const image = texture.getImage();
  if (!image || image.byteLength === 0) return undefined;
  const mimeType = texture.getMimeType();
  const extension = PORTABLE[mimeType];
  if (extension) return { data: image, mimeType: mimeType as PortableImage['mimeType'], extension };
  try {
    const sharpFactory = await loadSharp();
    const png = await sharpFactory(image).png().toBuffer();
    return { data: new Uint8Array(png), mimeType: 'image/png', extension: 'png' };
  } catch {
    return undefined;
  }
}

/** Mean of glTF's roughness (G) and metalness (B) channels of a metallic-roughness image, 0–1, factors not applied. */
export async function metallicRoughnessMeans(
  image: Uint8Array,
): Promise<{ roughness: number; metallic: number }> {
  const sharpFactory = await loadSharp();
  const { channels } = await sharpFactory(image).toColourspace('srgb').stats();
  // A grey image has one channel (two with alpha): every channel then holds the same value.
  const green = channels[Math.min(1, channels.length - 1)].mean / 255;
  const blue = channels[Math.min(2, channels.length - 1)].mean / 255;
  return { roughness: roundMean(green), metallic: roundMean(blue) };
}

/**
 * Splits a glTF metallic-roughness image into a roughness and a metalness image, each scaled by its factor as glTF
 * multiplies them, so a reader that takes the map alone sees the same surface.
 */
export async function splitMetallicRoughness(
  image: Uint8Array,
  roughnessFactor: number,
  metallicFactor: number,
): Promise<SplitMetallicRoughness> {
  const sharpFactory = await loadSharp();
  const channel = async (index: 1 | 2, factor: number) => {
    const { data, info } = await sharpFactory(image)
      .toColourspace('srgb')
      .extractChannel(index)
      .linear(factor, 0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    let sum = 0;
    for (const value of data) sum += value;
    const png = await sharpFactory(data, { raw: { width: info.width, height: info.height, channels: 1 } })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    return { png: new Uint8Array(png), mean: roundMean(data.length > 0 ? sum / data.length / 255 : 0) };
  };
  const roughness = await channel(1, roughnessFactor);
  const metallic = await channel(2, metallicFactor);
  return {
    roughness: roughness.png,
    metallic: metallic.png,
    meanRoughness: roughness.mean,
    meanMetallic: metallic.mean,
  };
}

/** A mean of 8-bit values to four decimals: finer than one step of 1/255, and no `6.8e-7` for a black image. */
function roundMean(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
