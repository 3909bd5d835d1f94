// The catalog's thumbnail operations: an uploaded or rendered image made a model's thumbnail, and the render jobs
// queued when asked for and after material bindings change.
import type { EventPublisher } from '../../events/event-publisher.ts';
import { JobName, type JobPayloads } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { ModelRow } from '../../db/database.ts';
import type { ThumbnailType } from './image-type.ts';
import type { createModelRepository, ThumbnailSource } from '../repository.ts';
import { storedLods } from '../schemas.ts';
import { storageFullOr } from '../storage-full.ts';
import { checkThumbnailImage } from './thumbnail-image.ts';
import { thumbnailKey } from './thumbnails.ts';

/** What the thumbnail operations work with. */
export interface ThumbnailContext {
  models: ReturnType<typeof createModelRepository>;
  blobs: BlobStore;
  queue: JobQueue;
  events: EventPublisher;
}

/** The thumbnail operations of the catalog service. */
export function createThumbnailOperations({ models, blobs, queue, events }: ThumbnailContext) {
  return {
    /**
     * Checks an uploaded thumbnail (type, dimensions, a full decode) and makes it the model's. Undefined when the
     * model does not exist.
     */
    async uploadThumbnail(id: string, bytes: Uint8Array): Promise<ModelRow | undefined> {
      const type = await checkThumbnailImage(bytes);
      return this.replaceThumbnail(id, bytes, type, { source: 'uploaded' });
    },

    /**
     * Stores a thumbnail under a new content-named key, points the model at it and removes the one before (the
     * new one when the model is gone, or keeps an uploaded one with `keepUploaded`). Undefined when the model
     * does not exist.
     */
    async replaceThumbnail(
      id: string,
      bytes: Uint8Array,
      type: ThumbnailType,
      options: { source: ThumbnailSource; keepUploaded?: boolean },
    ): Promise<ModelRow | undefined> {
      const key = thumbnailKey(id, bytes, type);
      try {
        await blobs.putBytes(key, bytes);
      } catch (error) {
        throw storageFullOr(error);
      }
      const replaced = await models.setThumbnail(id, key, options.source, options);
      if (!replaced || replaced.kept) {
        if (replaced?.row.thumbnail_key !== key) await blobs.delete(key);
        return replaced?.row;
      }
      for (const unused of replaced.unused) await blobs.delete(unused);
      await events.publish('thumbnail.updated', { model_id: id });
      return replaced.row;
    },

    /** Queues a render of the model's thumbnail with its current materials; one queued render per model. */
    async queueThumbnailRender(id: string): Promise<void> {
      await queue.enqueue(
        JobName.RenderThumbnail,
        { model_id: id },
        { subject: id, dedupeKey: renderKey(id, false) },
      );
    },

    /** Queues a thumbnail job again under the key it came with (a render of its model was under way). */
    async queueThumbnailRenderAgain(
      payload: JobPayloads['render-thumbnail'],
      delayMs: number,
    ): Promise<void> {
      const id = payload.model_id;
      await queue.enqueue(JobName.RenderThumbnail, payload, {
        subject: id,
        dedupeKey: renderKey(id, payload.after_bindings === true),
        delayMs,
      });
    },

    /**
     * Queues a render of each completed model's thumbnail `delayMs` from now, after its material bindings changed.
     * One such render waits per model (the first change of a burst sets the time; the rest join it), and it reads
     * the bindings when it runs, so it shows every change made before then. Uploaded thumbnails are kept.
     */
    async queueThumbnailRefresh(modelIds: readonly string[], options: { delayMs: number }): Promise<void> {
      for (const id of modelIds) {
        const row = await models.get(id);
        if (row?.status !== 'completed' || storedLods(row).length === 0) continue;
        await queue.enqueue(
          JobName.RenderThumbnail,
          { model_id: id, after_bindings: true },
          { subject: id, dedupeKey: renderKey(id, true), delayMs: options.delayMs },
        );
      }
    },
  };
}

/**
 * The dedupe key of a model's thumbnail job. Renders asked for and renders after binding changes wait apart, so
 * an explicit Regenerate neither waits out the refresh delay nor inherits a refresh's respect for an upload.
 */
function renderKey(modelId: string, afterBindings: boolean): string {
  return afterBindings ? `thumbnail-refresh:${modelId}` : `thumbnail:${modelId}`;
}
