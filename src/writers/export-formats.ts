// No imports: the web viewer bundles this file too, so its export menu lists exactly what the service offers.

/** Formats `GET /api/models/:id/export` writes. */
export const EXPORT_FORMATS = ['glb', 'usdz', 'obj', 'stl', '3mf'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * `bound`: the material service's bindings are baked in; `source`: the model's own materials only; `variants` (GLB
 * only): the bindings baked in, and each configuration of the model a `KHR_materials_variants` variant.
 */
export const EXPORT_MATERIAL_MODES = ['bound', 'source', 'variants'] as const;
/** One of {@link EXPORT_MATERIAL_MODES}. */
export type ExportMaterialMode = (typeof EXPORT_MATERIAL_MODES)[number];

/** What each format is delivered as: file extension, media type and a label for menus. */
export const EXPORT_FILES: Record<ExportFormat, { extension: string; contentType: string; label: string }> = {
  glb: { extension: 'glb', contentType: 'model/gltf-binary', label: 'glTF binary (.glb)' },
  usdz: { extension: 'usdz', contentType: 'model/vnd.usdz+zip', label: 'USDZ for AR Quick Look' },
  // OBJ needs its .mtl and textures beside it, so the three travel as one zip.
  obj: { extension: 'zip', contentType: 'application/zip', label: 'OBJ + MTL (.zip)' },
  stl: { extension: 'stl', contentType: 'model/stl', label: 'STL (binary)' },
  '3mf': { extension: '3mf', contentType: 'model/3mf', label: '3MF (parts with colours and textures)' },
};

/** Length units of the `unit` option, named as 3MF names them; millimetres by default, as slicers expect. */
export const EXPORT_UNITS = ['millimeter', 'micron', 'centimeter', 'inch', 'foot', 'meter'] as const;
/** One of {@link EXPORT_UNITS}. */
export type ExportUnit = (typeof EXPORT_UNITS)[number];
/** The unit STL and 3MF are written in when none is asked for. */
export const DEFAULT_EXPORT_UNIT: ExportUnit = 'millimeter';
/** Formats for 3D printing, which are written in a chosen unit with +Z up; the others keep metres and +Y up. */
export const UNIT_FORMATS: readonly ExportFormat[] = ['stl', '3mf'];
/** How many of each unit make a metre, Vitrine's scene unit. */
export const UNITS_PER_METRE: Record<ExportUnit, number> = {
  micron: 1_000_000,
  millimeter: 1000,
  centimeter: 100,
  inch: 1 / 0.0254,
  foot: 1 / 0.3048,
  meter: 1,
};
