/**
 * Every event the service publishes, on the live stream and to webhooks. A module of its own with no imports, so
 * the viewer's bundle can take the list from here.
 */
export const EVENT_TYPES = [
  'model.created',
  'model.progress',
  'model.completed',
  'model.failed',
  'model.updated',
  'model.deleted',
  'model.version.created',
  'model.version.completed',
  'model.version.failed',
  'thumbnail.updated',
  'bindings.changed',
  'annotation.created',
  'annotation.updated',
  'annotation.deleted',
  'view.created',
  'view.deleted',
  'configuration.created',
  'configuration.updated',
  'configuration.deleted',
  'configuration.applied',
] as const;
