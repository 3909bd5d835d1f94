// No imports: the web viewer bundles this file too, so its export menu lists exactly what the service offers.

/** Formats `GET /api/models/:id/export` writes. */
export const EXPORT_FORMATS = ['glb', 'usdz', 'obj', 'stl', '3mf'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** `bound`: the material service's bindings are baked in; `source`: the model's own materials only. */
export const EXPORT_MATERIAL_MODES = ['bound', 'source'] as const;
/** One of {@link EXPORT_MATERIAL_MODES}. */
export type ExportMaterialMode = (typeof EXPORT_MATERIAL_MODES)[number];

/** What each format is delivered as: file extension, media type and a label for menus. */
export const EXPORT_FILES: Record<ExportFormat, { extension: string; contentType: string; label: string }> = {
  glb: { extension: 'glb', contentType: 'model/gltf-binary', label: 'glTF binary (.glb)' },
  usdz: { extension: 'usdz', contentType: 'model/vnd.usdz+zip', label: 'USDZ for AR Quick Look' },
  // OBJ needs its .mtl and textures beside it, so the three travel as one zip.
  obj: { extension: 'zip', contentType: 'application/zip', label: 'OBJ + MTL (.zip)' },
  stl: { extension: 'stl', contentType: 'model/stl', label: 'STL (binary)' },
  '3mf': { extension: '3mf', contentType: 'model/3mf', label: '3MF (parts with colours)' },
};
