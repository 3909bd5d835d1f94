// A conversion's progress as the model row and the event stream see it: the thread reports often, the database
// is written at most every half second and an event sent at most every second.
import type { ConversionPool } from '../../threads/pool-types.ts';
import type { ModelRepository } from '../repository.ts';

/** What the pool calls with a conversion's progress. */
type OnProgress = NonNullable<Parameters<ConversionPool['convert']>[0]['onProgress']>;

// Progress writes are throttled: the database need not see every percent.
const PROGRESS_INTERVAL_MS = 500;
// Progress events are throttled further: every stream and webhook receives each one.
const PROGRESS_EVENT_INTERVAL_MS = 1_000;

/**
 * The `onProgress` of one conversion: maps the thread's percent (and its thumbnail stage) onto the model's
 * overall progress, writes it to the row and announces it, both throttled; a failed write is left for the next.
 */
export function progressWriter(
  models: Pick<ModelRepository, 'setProgress'>,
  modelId: string,
  announce: () => Promise<void>,
): OnProgress {
  let lastWrite = 0;
  let lastEvent = Date.now();
  let announced = 0;
  return (percent, stage) => {
    const now = Date.now();
    if (now - lastWrite < PROGRESS_INTERVAL_MS && stage !== 'thumbnail') return;
    lastWrite = now;
    // The conversion is the first 90 %, the thumbnail and storing the rest.
    const overall = stage === 'thumbnail' ? 92 : Math.min(90, Math.round(percent * 0.9));
    const written = models.setProgress(modelId, overall);
    written.catch(() => {});
    if (now - lastEvent < PROGRESS_EVENT_INTERVAL_MS || overall <= announced) return;
    lastEvent = now;
    announced = overall;
    void written.then(announce).catch(() => {});
  };
}
