import type { DatabaseHandle } from '../db/create-db.ts';
import { toTopic, type Topic } from './topic-schemas.ts';

/** What a new topic is made of: the wire form, its times as ISO text. */
export type NewTopic = Topic;

/** The BCF topics' data access: the only code that queries `review_topics`. */
export type TopicRepository = ReturnType<typeof createTopicRepository>;

/** Creates the repository over an open database. */
export function createTopicRepository({ db }: Pick<DatabaseHandle, 'db'>) {
  const repository = {
    /**
     * Stores a topic; undefined when its model (or the annotation or view it links) was deleted meanwhile. When its
     * id is another model's topic already (the same BCF imported into two models), it takes `alternateId`.
     */
    async create(topic: NewTopic, alternateId?: string): Promise<Topic | undefined> {
      try {
        const row = await db
          .insertInto('review_topics')
          .values({
            ...topic,
            labels: JSON.stringify(topic.labels),
            comments: JSON.stringify(topic.comments),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toTopic(row);
      } catch (error) {
        const message = (error as Error).message;
        if (/foreign key/i.test(message)) return undefined;
        if (alternateId !== undefined && alternateId !== topic.id && /unique|duplicate key/i.test(message)) {
          return repository.create({ ...topic, id: alternateId });
        }
        throw error;
      }
    },

    /** A model's topics, oldest first. */
    async list(modelId: string): Promise<Topic[]> {
      const rows = await db
        .selectFrom('review_topics')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toTopic);
    },

    /** One topic of a model, or undefined. */
    async get(modelId: string, topicId: string): Promise<Topic | undefined> {
      const row = await db
        .selectFrom('review_topics')
        .selectAll()
        .where('id', '=', topicId)
        .where('model_id', '=', modelId)
        .executeTakeFirst();
      return row && toTopic(row);
    },
  };
  return repository;
}
