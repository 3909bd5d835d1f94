import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../db/create-db.ts';
import { nowIso } from '../db/timestamps.ts';
import { toAnnotation, type Annotation } from './schemas.ts';

/** What a new annotation is made of, checked by the caller. */
export interface NewAnnotation {
  /** Kept from an imported BCF topic's Guid when no other annotation has it; a new uuid when omitted. */
  id?: string;
  /** The id to use when `id` is another annotation's already; a new uuid when omitted. */
  alternate_id?: string;
  model_id: string;
  group_id: string;
  position: [number, number, number];
  normal: [number, number, number];
  text: string;
  author: string | null;
  resolved?: boolean;
  /** Kept from an imported BCF topic; now when omitted. */
  created_at?: string;
  updated_at?: string;
}

/** The annotations' data access: the only code that queries `annotations`. */
export type AnnotationRepository = ReturnType<typeof createAnnotationRepository>;

/** Creates the repository over an open database. */
export function createAnnotationRepository({ db }: Pick<DatabaseHandle, 'db'>) {
  /**
   * Stores an annotation; undefined when the model was deleted meanwhile (its foreign key refuses the row).
   */
  const create = async (input: NewAnnotation): Promise<Annotation | undefined> => {
    const now = nowIso();
    try {
      const row = await db
        .insertInto('annotations')
        .values({
          id: input.id ?? randomUUID(),
          model_id: input.model_id,
          group_id: input.group_id,
          position: JSON.stringify(input.position),
          normal: JSON.stringify(input.normal),
          text: input.text,
          author: input.author,
          resolved: input.resolved ? 1 : 0,
          created_at: input.created_at ?? now,
          updated_at: input.updated_at ?? input.created_at ?? now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAnnotation(row);
    } catch (error) {
      const message = (error as Error).message;
      if (/foreign key/i.test(message)) return undefined;
      // The id is another model's annotation (the same BCF imported into two models): this one gets its own.
      if (input.id !== undefined && /unique|duplicate key/i.test(message)) {
        return create({ ...input, id: input.alternate_id, alternate_id: undefined });
      }
      throw error;
    }
  };

  return {
    create,

    /** A model's annotations, oldest first. */
    async list(modelId: string): Promise<Annotation[]> {
      const rows = await db
        .selectFrom('annotations')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toAnnotation);
    },

    /** One annotation of a model, or undefined. */
    async get(modelId: string, annotationId: string): Promise<Annotation | undefined> {
      const row = await db
        .selectFrom('annotations')
        .selectAll()
        .where('id', '=', annotationId)
        .where('model_id', '=', modelId)
        .executeTakeFirst();
      return row && toAnnotation(row);
    },

    /** Changes an annotation's text or resolved flag; undefined when the model has no such annotation. */
    async update(
      modelId: string,
      annotationId: string,
      changes: { text?: string; resolved?: boolean },
    ): Promise<Annotation | undefined> {
      const row = await db
        .updateTable('annotations')
        .set({
          ...(changes.text === undefined ? {} : { text: changes.text }),
          ...(changes.resolved === undefined ? {} : { resolved: changes.resolved ? 1 : 0 }),
          updated_at: nowIso(),
        })
        .where('id', '=', annotationId)
        .where('model_id', '=', modelId)
        .returningAll()
        .executeTakeFirst();
      return row && toAnnotation(row);
    },

    /** Deletes an annotation of a model; the deleted one, or undefined when there was none. */
    async delete(modelId: string, annotationId: string): Promise<Annotation | undefined> {
      const row = await db
        .deleteFrom('annotations')
        .where('id', '=', annotationId)
        .where('model_id', '=', modelId)
        .returningAll()
        .executeTakeFirst();
      return row && toAnnotation(row);
    },
  };
}
