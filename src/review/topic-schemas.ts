import { Type, type Static } from '@sinclair/typebox';
import type { ReviewTopicRow } from '../db/database.ts';
import { toIso } from '../db/timestamps.ts';

const nullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const nullableTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/** A comment of a BCF topic, as the file gave it. */
export const TopicCommentSchema = Type.Object({
  guid: Type.String(),
  date: Type.String({ format: 'date-time' }),
  author: Type.String(),
  text: Type.String(),
  modified_date: nullableTime('When the comment was last changed.'),
  modified_author: nullableText('Who last changed it.'),
});
/** A topic comment on the wire. */
export type TopicComment = Static<typeof TopicCommentSchema>;

/**
 * A BCF topic imported from another tool: what it says beyond the annotation or saved view it became. With neither
 * (`annotation_id` and `view_id` null) it is an unpinned note.
 */
export const TopicSchema = Type.Object({
  id: Type.String({ description: "The topic's Guid (or an id derived from it and the model)." }),
  model_id: Type.String({ format: 'uuid' }),
  annotation_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The annotation it became, when its viewpoint selects a part of the model.',
  }),
  view_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The saved view it became, when its viewpoint has a camera and selects no part.',
  }),
  title: Type.String(),
  topic_type: Type.String({
    description: 'As the file gave it (`Error`, `Issue`, `View`, …); may be empty.',
  }),
  status: Type.String({ description: 'As the file gave it (`Open`, `Closed`, …); may be empty.' }),
  priority: nullableText('As the file gave it.'),
  labels: Type.Array(Type.String()),
  due_date: nullableTime('When it is due.'),
  assigned_to: nullableText('Who it is assigned to.'),
  stage: nullableText('The stage (milestone) it belongs to.'),
  description: nullableText("The topic's description."),
  author: nullableText("The topic's creation author."),
  comments: Type.Array(TopicCommentSchema),
  created_at: Type.String({ format: 'date-time' }),
  modified_at: nullableTime('When the topic was last changed.'),
  modified_author: nullableText('Who last changed the topic.'),
});
/** A stored topic on the wire. */
export type Topic = Static<typeof TopicSchema>;

/** A topic row as the API shows it. */
export function toTopic(row: ReviewTopicRow): Topic {
  return {
    id: row.id,
    model_id: row.model_id,
    annotation_id: row.annotation_id,
    view_id: row.view_id,
    title: row.title,
    topic_type: row.topic_type,
    status: row.status,
    priority: row.priority,
    labels: JSON.parse(row.labels) as string[],
    due_date: row.due_date === null ? null : toIso(row.due_date),
    assigned_to: row.assigned_to,
    stage: row.stage,
    description: row.description,
    author: row.author,
    comments: JSON.parse(row.comments) as TopicComment[],
    created_at: toIso(row.created_at),
    modified_at: row.modified_at === null ? null : toIso(row.modified_at),
    modified_author: row.modified_author,
  };
}
