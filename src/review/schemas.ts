import { Type, type Static } from '@sinclair/typebox';
import { Vector3Schema } from '../catalog/schemas.ts';
import type { AnnotationRow, SavedViewRow } from '../db/database.ts';
import { toIso } from '../db/timestamps.ts';

/** Longest annotation text, in characters. */
export const MAX_ANNOTATION_TEXT = 10_000;
/** Longest saved view name, in characters. */
export const MAX_VIEW_NAME = 200;
/** Most group ids a view may hide or isolate. */
export const MAX_VIEW_GROUPS = 100_000;
/** Most section planes of a view (the viewer draws six: a box). */
export const MAX_VIEW_SECTIONS = 6;

/** A finite number in a request: JSON has no infinities, but `1e999` parses as one. */
const FiniteNumber = Type.Number({ minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE });

/** A 3-vector of finite numbers in a request. */
const InputVector3 = Type.Unsafe<[number, number, number]>(
  Type.Array(FiniteNumber, { minItems: 3, maxItems: 3 }),
);

const timestamp = Type.String({ format: 'date-time' });
const author = Type.Union([Type.String(), Type.Null()], {
  description: 'The name of the scoped token that wrote it; null for the admin token.',
});

/** An annotation: a note pinned to a point on one part of a model. */
export const AnnotationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  model_id: Type.String({ format: 'uuid' }),
  group_id: Type.String({ description: 'The part it is pinned to (stable across reprocessing).' }),
  position: Type.Unsafe<[number, number, number]>({
    ...Vector3Schema,
    description: "The pin, in the model's metres with +Y up (the frame of its LOD files).",
  }),
  normal: Type.Unsafe<[number, number, number]>({
    ...Vector3Schema,
    description: 'The surface normal at the pin, to place the marker and a camera looking at it.',
  }),
  text: Type.String(),
  author,
  resolved: Type.Boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});
/** An annotation on the wire. */
export type Annotation = Static<typeof AnnotationSchema>;

/** `POST /api/models/:id/annotations`. */
export const CreateAnnotationBody = Type.Object(
  {
    group_id: Type.String({
      minLength: 1,
      description: 'A part of the model (see `GET /api/models/:id/parts`).',
    }),
    position: InputVector3,
    normal: Type.Unsafe<[number, number, number]>({
      ...InputVector3,
      description: 'Need not be of unit length; it must not be zero.',
    }),
    text: Type.String({ minLength: 1, maxLength: MAX_ANNOTATION_TEXT }),
  },
  { additionalProperties: false },
);
/** The body of an annotation's creation. */
export type CreateAnnotationBody = Static<typeof CreateAnnotationBody>;

/** `PATCH /api/models/:id/annotations/:annotation_id`. */
export const PatchAnnotationBody = Type.Object(
  {
    text: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ANNOTATION_TEXT })),
    resolved: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
/** The body of an annotation's edit. */
export type PatchAnnotationBody = Static<typeof PatchAnnotationBody>;

/** `:id/annotations/:annotation_id`. */
export const AnnotationIdParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid model id' }),
  annotation_id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid annotation id' }),
});

const CameraSchema = Type.Object(
  {
    position: InputVector3,
    target: InputVector3,
    up: InputVector3,
    fov: Type.Number({ minimum: 1, maximum: 179, description: 'Vertical field of view, in degrees.' }),
  },
  { additionalProperties: false, description: "In the model's metres with +Y up." },
);

const SectionSchema = Type.Object(
  {
    normal: InputVector3,
    constant: Type.Number({
      minimum: -Number.MAX_VALUE,
      maximum: Number.MAX_VALUE,
      description: 'As three.js `Plane`: points p with normal·p + constant < 0 are cut.',
    }),
  },
  { additionalProperties: false },
);

const groupList = (description: string) =>
  Type.Array(Type.String({ minLength: 1 }), { maxItems: MAX_VIEW_GROUPS, description });

const viewFields = {
  name: Type.String({ minLength: 1, maxLength: MAX_VIEW_NAME }),
  camera: CameraSchema,
  hidden: groupList('Group ids of the hidden parts.'),
  isolated: groupList('Group ids of the parts shown alone; empty when none is isolated.'),
  sections: Type.Array(SectionSchema, { maxItems: MAX_VIEW_SECTIONS }),
  xray: Type.Boolean(),
  level: Type.Unsafe<0 | 1 | 2>(
    Type.Integer({ minimum: 0, maximum: 2, description: 'The level of detail shown: 0, 1 or 2.' }),
  ),
};

/** A saved view: camera, visibility, section planes, x-ray and level of detail of a model. */
export const SavedViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  model_id: Type.String({ format: 'uuid' }),
  ...viewFields,
  author,
  created_at: timestamp,
});
/** A saved view on the wire. */
export type SavedView = Static<typeof SavedViewSchema>;

/** `POST /api/models/:id/views`. */
export const CreateViewBody = Type.Object(viewFields, { additionalProperties: false });
/** The body of a saved view's creation. */
export type CreateViewBody = Static<typeof CreateViewBody>;

/** `:id/views/:view_id`. */
export const ViewIdParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid model id' }),
  view_id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid view id' }),
});

/** An annotation row as the API shows it. */
export function toAnnotation(row: AnnotationRow): Annotation {
  return {
    id: row.id,
    model_id: row.model_id,
    group_id: row.group_id,
    position: JSON.parse(row.position),
    normal: JSON.parse(row.normal),
    text: row.text,
    author: row.author,
    resolved: Number(row.resolved) === 1,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** A saved view row as the API shows it. */
export function toSavedView(row: SavedViewRow): SavedView {
  return {
    id: row.id,
    model_id: row.model_id,
    name: row.name,
    camera: JSON.parse(row.camera),
    hidden: JSON.parse(row.hidden),
    isolated: JSON.parse(row.isolated),
    sections: JSON.parse(row.sections),
    xray: Number(row.xray) === 1,
    level: Number(row.level) as SavedView['level'],
    author: row.author,
    created_at: toIso(row.created_at),
  };
}
