import { Type, type Static } from '@sinclair/typebox';

import { EVENT_TYPES } from './event-names.ts';

export { EVENT_TYPES };

/** One of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

/** True when `value` names an event type. */
export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** What a model event says about the model: enough to update a list or a progress bar without a request. */
export const ModelEventDataSchema = Type.Object({
  model_id: Type.String(),
  name: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('processing'),
    Type.Literal('completed'),
    Type.Literal('failed'),
  ]),
  progress: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
});
/** Data of `model.created`, `model.progress`, `model.completed`, `model.failed` and `model.updated`. */
export type ModelEventData = Static<typeof ModelEventDataSchema>;

/** Data of `model.deleted` and `thumbnail.updated`. */
export const ModelIdDataSchema = Type.Object({ model_id: Type.String() });

/**
 * Data of the version events: `model.version.created` (a version was posted and queued),
 * `model.version.completed` (it became the model's current version; `diff_counts` against `based_on`) and
 * `model.version.failed` (its conversion failed; the current version stays).
 */
export const VersionEventDataSchema = Type.Object({
  model_id: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  based_on: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The version that was current when this one was posted.',
  }),
  diff_counts: Type.Optional(
    Type.Union([
      Type.Object({
        added: Type.Integer(),
        removed: Type.Integer(),
        changed: Type.Integer(),
        unchanged: Type.Integer(),
      }),
      Type.Null(),
    ]),
  ),
  error: Type.Optional(Type.String({ description: 'Why the conversion failed (failed only).' })),
});
/** Data of the version events. */
export type VersionEventData = Static<typeof VersionEventDataSchema>;

/** Data of `bindings.changed`: which groups were bound to or unbound from a material, and the models they are in. */
export const BindingsDataSchema = Type.Object({
  material_id: Type.Integer(),
  group_ids: Type.Array(Type.String()),
  bound: Type.Boolean({ description: 'true for a bind, false for an unbind or a deleted material' }),
  model_ids: Type.Array(Type.String(), { description: 'The converted models those groups belong to.' }),
});
/** Data of `bindings.changed`. */
export type BindingsData = Static<typeof BindingsDataSchema>;

/** Data of `annotation.created`, `annotation.updated` and `annotation.deleted`: fetch the list again to see it. */
export const AnnotationEventDataSchema = Type.Object({
  model_id: Type.String(),
  annotation_id: Type.String(),
  group_id: Type.String({ description: 'The part the annotation is pinned to.' }),
});
/** Data of the annotation events. */
export type AnnotationEventData = Static<typeof AnnotationEventDataSchema>;

/** Data of `view.created` and `view.deleted`. */
export const ViewEventDataSchema = Type.Object({ model_id: Type.String(), view_id: Type.String() });
/** Data of the saved view events. */
export type ViewEventData = Static<typeof ViewEventDataSchema>;

/** Data of `configuration.created|updated|deleted|applied`; `updated` also follows a change of its bindings. */
export const ConfigurationEventDataSchema = Type.Object({
  model_id: Type.String(),
  configuration_id: Type.String(),
});
/** Data of the configuration events. */
export type ConfigurationEventData = Static<typeof ConfigurationEventDataSchema>;

/** The data each event type carries. */
export interface EventData {
  'model.created': ModelEventData;
  'model.progress': ModelEventData;
  'model.completed': ModelEventData;
  'model.failed': ModelEventData;
  'model.updated': ModelEventData;
  'model.deleted': { model_id: string };
  'model.version.created': VersionEventData;
  'model.version.completed': VersionEventData;
  'model.version.failed': VersionEventData;
  'thumbnail.updated': { model_id: string };
  'bindings.changed': BindingsData;
  'annotation.created': AnnotationEventData;
  'annotation.updated': AnnotationEventData;
  'annotation.deleted': AnnotationEventData;
  'view.created': ViewEventData;
  'view.deleted': ViewEventData;
  'configuration.created': ConfigurationEventData;
  'configuration.updated': ConfigurationEventData;
  'configuration.deleted': ConfigurationEventData;
  'configuration.applied': ConfigurationEventData;
}

/** An event as clients receive it: the SSE `data:` line and the body of a webhook delivery. */
export const EventSchema = Type.Object({
  id: Type.Integer({ description: 'Grows with every event; resume a stream after it with Last-Event-ID.' }),
  type: Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES] }),
  created_at: Type.String({ format: 'date-time' }),
  data: Type.Union([
    ModelEventDataSchema,
    ModelIdDataSchema,
    VersionEventDataSchema,
    BindingsDataSchema,
    AnnotationEventDataSchema,
    ViewEventDataSchema,
    ConfigurationEventDataSchema,
  ]),
});
/** An event on the wire. */
export type VitrineEvent = Static<typeof EventSchema>;

/** True when an event concerns the model (a binding change concerns every model its groups are in). */
export function concernsModel(event: VitrineEvent, modelId: string): boolean {
  const data = event.data as { model_id?: string; model_ids?: string[] };
  return data.model_id === modelId || (data.model_ids?.includes(modelId) ?? false);
}
