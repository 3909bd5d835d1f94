/** Client of a model's annotations and saved views (`/api/models/:id/annotations`, `…/views`, catalog envelope). */
import { ApiError } from './api-error.ts';
import { request } from './http.ts';
import { getToken } from './token.ts';

/** An x, y, z triple in the model's metres (the frame of its `bounds` and of its GLB files). */
export type Triple = [number, number, number];

/** A note pinned to a point on a part's surface. */
export interface Annotation {
  id: string;
  model_id: string;
  group_id: string;
  position: Triple;
  /** The surface normal at `position`, pointing out of the part. */
  normal: Triple;
  text: string;
  author: string | null;
  resolved: boolean;
  created_at: string;
  updated_at: string;
}

/** What a new annotation is made of. */
export type NewAnnotation = Pick<Annotation, 'group_id' | 'position' | 'normal' | 'text'>;

/** The fields of an annotation that can change. */
export type AnnotationPatch = Partial<Pick<Annotation, 'text' | 'resolved'>>;

/** A section plane: a point p is kept when `normal · p + constant >= 0`. */
export interface SavedSection {
  normal: Triple;
  constant: number;
}

/** Where the camera stands and looks. */
export interface SavedCamera {
  position: Triple;
  target: Triple;
  up: Triple;
  /** Vertical field of view in degrees. */
  fov: number;
}

/** A named state of the view: camera, hidden or isolated parts, section planes, x-ray and level of detail. */
export interface SavedView {
  id: string;
  model_id: string;
  name: string;
  camera: SavedCamera;
  /** Group ids of the parts not drawn. */
  hidden: string[];
  /** Group ids of the only parts drawn; empty when the view isolates nothing. */
  isolated: string[];
  sections: SavedSection[];
  xray: boolean;
  level: 0 | 1 | 2;
  author: string | null;
  created_at: string;
}

/** What a new saved view is made of. */
export type NewSavedView = Omit<SavedView, 'id' | 'model_id' | 'author' | 'created_at'>;

const modelPath = (modelId: string, tail: string): string =>
  `/api/models/${encodeURIComponent(modelId)}/${tail}`;

async function data<T>(path: string, options: Parameters<typeof request>[1] = {}): Promise<T> {
  return ((await request(path, options)) as { data: T }).data;
}

/** The model's annotations. */
export function listAnnotations(modelId: string): Promise<Annotation[]> {
  return data<Annotation[]>(modelPath(modelId, 'annotations'));
}

/** Pins a new annotation. */
export function createAnnotation(modelId: string, body: NewAnnotation): Promise<Annotation> {
  return data<Annotation>(modelPath(modelId, 'annotations'), { method: 'POST', body });
}

/** Changes an annotation's text or resolved flag. */
export function updateAnnotation(modelId: string, id: string, patch: AnnotationPatch): Promise<Annotation> {
  return data<Annotation>(modelPath(modelId, `annotations/${encodeURIComponent(id)}`), {
    method: 'PATCH',
    body: patch,
  });
}

/** Deletes an annotation. */
export async function deleteAnnotation(modelId: string, id: string): Promise<void> {
  await request(modelPath(modelId, `annotations/${encodeURIComponent(id)}`), { method: 'DELETE' });
}

/** The model's saved views. */
export function listViews(modelId: string): Promise<SavedView[]> {
  return data<SavedView[]>(modelPath(modelId, 'views'));
}

/** Reads one saved view (the one a link names). */
export function getView(modelId: string, id: string): Promise<SavedView> {
  return data<SavedView>(modelPath(modelId, `views/${encodeURIComponent(id)}`));
}

/** Saves the view. */
export function createView(modelId: string, body: NewSavedView): Promise<SavedView> {
  return data<SavedView>(modelPath(modelId, 'views'), { method: 'POST', body });
}

/** Deletes a saved view. */
export async function deleteView(modelId: string, id: string): Promise<void> {
  await request(modelPath(modelId, `views/${encodeURIComponent(id)}`), { method: 'DELETE' });
}

/** A comment of an imported BCF topic. */
export interface TopicComment {
  guid: string;
  date: string;
  author: string;
  /** Empty when the comment only pointed at a viewpoint. */
  text: string;
}

/** An imported BCF topic: what it says beyond the annotation or view it became (neither: an unpinned note). */
export interface Topic {
  id: string;
  annotation_id: string | null;
  view_id: string | null;
  title: string;
  topic_type: string;
  status: string;
  priority: string | null;
  labels: string[];
  due_date: string | null;
  assigned_to: string | null;
  description: string | null;
  author: string | null;
  comments: TopicComment[];
  created_at: string;
}

/** What a BCF import answers. */
export interface BcfImportResult {
  imported: number;
  views: number;
  notes: number;
  skipped: number;
  skipped_topics: { guid: string; title: string; reason: string }[];
  topics: { guid: string; title: string; became: 'annotation' | 'view' | 'note'; id: string }[];
}

/** The model's imported BCF topics. */
export function listTopics(modelId: string): Promise<Topic[]> {
  return data<Topic[]>(modelPath(modelId, 'topics'));
}

/** Imports a BCF 3.0 file's topics into the model. */
export function importBcf(modelId: string, file: File): Promise<BcfImportResult> {
  const form = new FormData();
  form.append('file', file, file.name);
  return data<BcfImportResult>(modelPath(modelId, 'bcf'), { method: 'POST', body: form });
}

/** The model's annotations, saved views and topics as a BCF 3.0 zip. */
export async function exportBcf(modelId: string): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(modelPath(modelId, 'bcf'), { headers: { 'X-API-Token': getToken() ?? '' } });
  } catch {
    throw new ApiError(0, 'Cannot reach the server (GET bcf)');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
    throw new ApiError(response.status, body?.error ?? `The BCF export failed (${response.status})`);
  }
  return response.blob();
}
