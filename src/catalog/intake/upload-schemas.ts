/** The request shapes of the catalog's upload routes (a model's file or files, a thumbnail), for validation and OpenAPI. */
import { Type } from '@sinclair/typebox';
import { LENGTH_UNITS, UP_AXES } from '../../pipeline/types.ts';
import { MAX_UPLOAD_FILES } from './upload-limits.ts';

/**
 * The request headers `POST /api/models` reads besides the token. Documented only: the value is judged by the
 * route (request-keys.ts), which answers a bad one with its own message, so the schema sets no bounds of its own.
 */
export const UploadModelHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'A multipart upload sent again under the same key (1 to 255 visible ASCII characters, e.g. a random ' +
        'UUID per upload) with the same token within IDEMPOTENCY_KEY_HOURS answers the model the first copy ' +
        'made (200, `Idempotent-Replayed: true`) instead of making another; the same key with a different ' +
        'request is 422. Ignored with a JSON `{upload_id}` body, whose upload id is already its key.',
    }),
  ),
});

/** The form of `POST /api/models`, for the OpenAPI document (the route streams the file itself). */
export const UploadModelForm = Type.Object({
  file: Type.Array(Type.String({ format: 'binary' }), {
    minItems: 1,
    maxItems: MAX_UPLOAD_FILES,
    description:
      'The model, or a zip of a model and its files. Or the model with its files as one `file` field each ' +
      '(a .gltf with its .bin and images, an .obj with its .mtl and textures; at most ' +
      `${MAX_UPLOAD_FILES}, folders kept in the file names, sizes counted together): exactly one must be a model ` +
      'file. A .gltf or .obj whose files are missing is refused (400) naming them.',
  }),
  // Swagger UI fills a form with example values and sends them; empty examples leave optional fields unsent.
  name: Type.Optional(
    Type.String({ maxLength: 255, description: 'Defaults to the model file name.', example: '' }),
  ),
  description: Type.Optional(Type.String({ maxLength: 10_000, example: '' })),
  unit: Type.Optional(
    Type.String({
      enum: ['', ...Object.keys(LENGTH_UNITS)],
      default: 'm',
      example: '',
      description:
        'Length unit of a file that declares none (STL, OBJ, PLY): mm, cm, m, in or ft; absent or blank: m. ' +
        'Files that declare their unit keep it.',
    }),
  ),
  up: Type.Optional(
    Type.String({
      enum: ['', ...UP_AXES],
      default: 'y',
      example: '',
      description: 'Up axis of a file that declares none: y or z; absent or blank: y.',
    }),
  ),
});

/**
 * The JSON body of `POST /api/models` that makes a finished resumable upload (`/api/uploads`) a model. Only the
 * types are checked here; the values are judged by the same code as the form's, with the same messages.
 */
export const CreateModelFromUploadBody = Type.Object({
  upload_id: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,128}$',
    description: 'The last path segment of the upload URL (`Location` of `POST /api/uploads`).',
  }),
  name: Type.Optional(
    Type.String({ description: 'Defaults to the tus metadata `filename`, without extension.' }),
  ),
  description: Type.Optional(Type.String({ description: 'At most 10000 characters.' })),
  unit: Type.Optional(
    Type.String({ description: 'Length unit of a file that declares none: mm, cm, m (default), in or ft.' }),
  ),
  up: Type.Optional(Type.String({ description: 'Up axis of a file that declares none: y (default) or z.' })),
});

/** The form of `POST /api/models/:id/thumbnail`, for the OpenAPI document. */
export const UploadThumbnailForm = Type.Object({
  thumbnail: Type.String({ format: 'binary', description: 'A PNG or JPEG image of at most 2 MB.' }),
});

// The records as the API shows them sit with the shapes, so the share page and exports read and show a model the
// way the catalog does.
