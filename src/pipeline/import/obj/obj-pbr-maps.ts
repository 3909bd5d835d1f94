import { loadSharp } from '../../../gltf/load-sharp.ts';

/** Step name used in logs. */
export const NAME = 'obj-pbr-maps';

/** An image file's bytes. */
type Image = Uint8Array;

/**
 * Packs MTL's separate roughness (`map_Pr`) and metalness (`map_Pm`) images into the one PNG glTF's
 * metallic-roughness texture reads: roughness in green, metalness in blue, red white (no occlusion). Each map's
 * first channel is its value (the maps are grey); a missing one is white, so the material's factor alone sets
 * it. The metalness map is resized to the roughness map's size when they differ. Throws when sharp cannot
 * decode an image.
 */
export async function packMetallicRoughness(
  roughness: Image | undefined,
  metallic: Image | undefined,
): Promise<Image> {
  const decode = await loadSharp();
  const first = roughness ?? metallic;
  if (!first) throw new Error(`${NAME}: no image to pack`);
  const { width, height } = await decode(first).metadata();
  if (!width || !height) throw new Error(`${NAME}: an image without a size`);
  const channel = async (image: Image | undefined): Promise<Buffer | undefined> =>
    image === undefined
      ? undefined
      : decode(image).resize(width, height, { fit: 'fill' }).extractChannel(0).raw().toBuffer();
  const [green, blue] = await Promise.all([channel(roughness), channel(metallic)]);
  const pixels = Buffer.alloc(width * height * 3, 255);
  for (let i = 0; i < width * height; i++) {
    if (green) pixels[i * 3 + 1] = green[i];
    if (blue) pixels[i * 3 + 2] = blue[i];
  }
  const png = await decode(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return new Uint8Array(png);
}
