import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../../http/api-error.ts';
import { detectModelFormat, formatOfName, type DetectedFormat } from '../../pipeline/detect-format.ts';
import { missingResourcesMessage } from '../../pipeline/import/gltf/model-resources.ts';
import type { FormFile, UploadedFile } from '../../uploads/schemas.ts';
import { missingResources, type UploadedName } from './missing-resources.ts';
import { packFiles, PackTooLargeError } from './pack-files.ts';

/** The answer to several files none of which is a model. */
export const NO_MODEL_FILE =
  'None of the files is a model file (.glb, .gltf, .obj, .fbx, .stl, .ply, .dae, .3ds, .step, .stp, .iges, ' +
  '.igs, .ifc); send the model together with its resources';

/** What the catalog service is handed: one file, already judged, with the name the model keeps. */
export interface PreparedUpload {
  file: UploadedFile;
  detected: DetectedFormat;
  /** The model's `original_filename`: the file's own name, or for several files the model file's. */
  originalFilename: string;
}

/**
 * Judges one file uploaded alone, as a multipart form or resumably: its format, and for a .gltf or .obj that its
 * resources are not missing (a lone file has none beside it), refusing it with a message naming them.
 */
export async function judgeLoneFile(file: UploadedFile): Promise<DetectedFormat> {
  const detected = await detectModelFormat(file.path, file.filename);
  if (!detected) throw new ApiError(400, 'Unsupported model format');
  if (!detected.archive) {
    const alone = { path: file.path, relativeName: file.filename };
    await refuseMissing(file.filename, alone, detected, [alone]);
  }
  return detected;
}

/**
 * Makes the several files of one upload the one file the catalog stores. They are one model file (the only
 * file with a model format's extension) and its resources, packed, folders kept, into a zip laid out as a
 * client's zip of them would be, so the conversion unpacks them beside each other exactly as it unpacks an
 * uploaded zip. A .gltf or .obj whose resources are not among the files is refused here, naming them. The
 * received files stay where they are; the caller removes them.
 */
export async function prepareBundle(files: readonly FormFile[], tmpDir: string): Promise<PreparedUpload> {
  const seen = new Set<string>();
  for (const { relativeName } of files) {
    if (seen.has(relativeName))
      throw new ApiError(
        400,
        `Two files are named "${relativeName}"; each file of an upload needs its own name`,
      );
    seen.add(relativeName);
  }
  const candidates = files.filter((file) => isModelCandidate(file.relativeName));
  if (candidates.length === 0) throw new ApiError(400, NO_MODEL_FILE);
  if (candidates.length > 1) {
    const names = candidates.map((file) => `"${file.relativeName}"`).join(', ');
    throw new ApiError(
      400,
      `Several model files in one upload: ${names}; send one model with its resources per upload`,
    );
  }
  const [model] = candidates;
  if (path.extname(model.filename).toLowerCase() === '.zip') {
    throw new ApiError(
      400,
      `A zip is uploaded on its own: send "${model.relativeName}" without other files, or send the files unzipped`,
    );
  }
  const judged = await detectModelFormat(model.path, model.filename);
  if (!judged || judged.archive) throw new ApiError(400, 'Unsupported model format');
  await refuseMissing(model.filename, model, judged, files);

  const target = path.join(tmpDir, `${randomUUID()}.upload`);
  let size: number;
  try {
    // The model file first, so a person opening the stored zip sees it at once.
    const ordered = [model, ...files.filter((file) => file !== model)];
    size = await packFiles(
      ordered.map((file) => ({
        name: file.relativeName,
        path: file.path,
        size: file.size,
        crc32: file.crc32,
      })),
      target,
    );
  } catch (error) {
    await fsp.rm(target, { force: true });
    if (error instanceof PackTooLargeError) throw new ApiError(413, error.message);
    throw error;
  }
  return {
    file: { path: target, filename: `${path.parse(model.filename).name || 'model'}.zip`, size },
    detected: { format: judged.format, archive: true, entry: model.relativeName },
    originalFilename: model.filename,
  };
}

/** A model format's or a zip's extension, outside the hidden folders and files a zip's model is never taken from. */
function isModelCandidate(relativeName: string): boolean {
  const segments = relativeName.split('/');
  if (segments[0] === '__MACOSX' || segments.some((segment) => segment.startsWith('.'))) return false;
  return formatOfName(relativeName) !== undefined || path.extname(relativeName).toLowerCase() === '.zip';
}

/** Refuses a .gltf or .obj whose resources are not among the files, naming them. */
async function refuseMissing(
  modelName: string,
  model: UploadedName,
  detected: DetectedFormat,
  files: readonly UploadedName[],
): Promise<void> {
  const missing = await missingResources(model, detected.format, files);
  if (missing.length > 0) throw new ApiError(400, missingResourcesMessage(modelName, missing));
}
