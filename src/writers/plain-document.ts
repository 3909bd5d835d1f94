import type { Document } from '@gltf-transform/core';
import { dequantize } from '@gltf-transform/functions';
import type sharpModule from 'sharp';

/** Extensions of a served level that only make transfers smaller; an export leaves them out. */
const TRANSFER_EXTENSIONS = ['EXT_meshopt_compression', 'KHR_mesh_quantization', 'EXT_texture_webp'];

/**
 * Undoes what makes a served level small, for an export read by other tools: float vertex data instead of
 * quantized, no meshopt mark, and PNG instead of WebP textures (USDZ, OBJ and 3MF readers take PNG and JPEG only).
 * PNG is lossless, so the exported pixels are the served level's own.
 */
export async function plainDocument(document: Document, sharp: typeof sharpModule): Promise<Document> {
  const used = new Set(
    document
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.extensionName),
  );
  if (used.has('KHR_mesh_quantization')) await document.transform(dequantize());
  for (const texture of document.getRoot().listTextures()) {
    const image = texture.getImage();
    if (!image || texture.getMimeType() !== 'image/webp') continue;
    const png = await sharp(image).png().toBuffer();
    texture
      .setImage(new Uint8Array(png))
      .setMimeType('image/png')
      .setURI(texture.getURI().replace(/\.webp$/i, '.png'));
  }
  for (const extension of document.getRoot().listExtensionsUsed()) {
    if (TRANSFER_EXTENSIONS.includes(extension.extensionName)) extension.dispose();
  }
  return document;
}
