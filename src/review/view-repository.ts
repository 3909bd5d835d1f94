import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../db/create-db.ts';
import { nowIso } from '../db/timestamps.ts';
import { toSavedView, type CreateViewBody, type SavedView } from './schemas.ts';

/** The saved views' data access: the only code that queries `saved_views`. */
export type ViewRepository = ReturnType<typeof createViewRepository>;

/** Creates the repository over an open database. */
export function createViewRepository({ db }: Pick<DatabaseHandle, 'db'>) {
  const repository = {
    /** Stores a view; undefined when the model was deleted meanwhile (its foreign key refuses the row). */
    async create(
      modelId: string,
      view: CreateViewBody,
      author: string | null,
      createdAt: string = nowIso(),
      id: string = randomUUID(),
      /** The id to use when `id` is another view's already. */
      alternateId: string = randomUUID(),
    ): Promise<SavedView | undefined> {
      try {
        const row = await db
          .insertInto('saved_views')
          .values({
            id,
            model_id: modelId,
            name: view.name,
            camera: JSON.stringify(view.camera),
            hidden: JSON.stringify(view.hidden),
            isolated: JSON.stringify(view.isolated),
            sections: JSON.stringify(view.sections),
            xray: view.xray ? 1 : 0,
            level: view.level,
            author,
            created_at: createdAt,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toSavedView(row);
      } catch (error) {
        const message = (error as Error).message;
        if (/foreign key/i.test(message)) return undefined;
        // The id is another model's view (the same BCF imported into two models): this one gets its own.
        if (/unique|duplicate key/i.test(message))
          return repository.create(modelId, view, author, createdAt, alternateId);
        throw error;
      }
    },

    /** A model's views, oldest first. */
    async list(modelId: string): Promise<SavedView[]> {
      const rows = await db
        .selectFrom('saved_views')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toSavedView);
    },

    /** One view of a model, or undefined. */
    async get(modelId: string, viewId: string): Promise<SavedView | undefined> {
      const row = await db
        .selectFrom('saved_views')
        .selectAll()
        .where('id', '=', viewId)
        .where('model_id', '=', modelId)
        .executeTakeFirst();
      return row && toSavedView(row);
    },

    /** Deletes a view of a model; false when the model has no such view. */
    async delete(modelId: string, viewId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('saved_views')
        .where('id', '=', viewId)
        .where('model_id', '=', modelId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
  return repository;
}
