// The review tables (annotations, saved views, BCF topics), apart from database.ts so that file stays one screenful
// per table family.
import type { Timestamp } from './database.ts';

/** The `annotations` table: notes pinned to a point on a part of a model, kept by the part's group id. */
export interface AnnotationsTable {
  id: string;
  model_id: string;
  group_id: string;
  /** JSON `[x, y, z]` in the model's metres, +Y up. */
  position: string;
  /** JSON `[x, y, z]`, the surface normal at the pin. */
  normal: string;
  text: string;
  /** Name of the scoped token that wrote it; null for the admin token. */
  author: string | null;
  /** 1 when resolved, else 0. */
  resolved: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `review_topics` table: an imported BCF topic, linked to what it became (neither: an unpinned note). */
export interface ReviewTopicsTable {
  id: string;
  model_id: string;
  annotation_id: string | null;
  view_id: string | null;
  title: string;
  topic_type: string;
  status: string;
  priority: string | null;
  labels: string;
  due_date: Timestamp | null;
  assigned_to: string | null;
  stage: string | null;
  description: string | null;
  author: string | null;
  /** JSON: `labels` an array of strings, `comments` of `TopicComment` in the file's order. */
  comments: string;
  created_at: Timestamp;
  modified_at: Timestamp | null;
  modified_author: string | null;
}

/** The `saved_views` table: a named camera and visibility state of a model. */
export interface SavedViewsTable {
  id: string;
  model_id: string;
  name: string;
  /** JSON `{position, target, up, fov}`. */
  camera: string;
  /** JSON array of group ids. */
  hidden: string;
  /** JSON array of group ids. */
  isolated: string;
  /** JSON array of `{normal, constant}`. */
  sections: string;
  /** 1 for x-ray, else 0. */
  xray: number;
  level: number;
  author: string | null;
  created_at: Timestamp;
}
