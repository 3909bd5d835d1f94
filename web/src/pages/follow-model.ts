/** Follows a model's conversion: through the live event stream, or by polling when the stream is unavailable. */
import { getModel } from '../api/catalog-api.ts';
import { subscribeEvents, type ServerEvent } from '../api/events.ts';
import type { Model } from '../api/types.ts';

/** How often the conversion state is read when there is no event stream. */
export const POLL_INTERVAL_MS = 1000;

/** True once the model will not change without a new request (completed or failed). */
export function isSettled(model: Model): boolean {
  return model.status === 'completed' || model.status === 'failed';
}

/** Where {@link followModel} reads the model and its events; the page's API unless a test gives others. */
export interface FollowSources {
  getModel: (id: string) => Promise<Model>;
  subscribeEvents: typeof subscribeEvents;
}

/**
 * Calls `onUpdate` with each state until the model settles; `onError` receives a failed read, after which
 * following stops. The model is read once when the stream opens (so nothing between the page's read and the
 * stream is missed) and once when it settles (for its levels of detail); progress comes from the events alone.
 * An event that arrives while a read is on its way may be newer than what that read answers (a conversion that
 * fails within milliseconds), so the model is read again after it. Returns a function that stops following early.
 */
export function followModel(
  id: string,
  onUpdate: (model: Model) => void,
  onError: (error: unknown) => void,
  sources: FollowSources = { getModel, subscribeEvents },
): () => void {
  let stopped = false;
  let latest: Model | undefined;
  let reading = false;
  let readAgain = false;
  let stopPolling: (() => void) | undefined;
  const stop = (): void => {
    stopped = true;
    closeStream();
    stopPolling?.();
  };
  const read = (): void => {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    sources
      .getModel(id)
      .then((model) => {
        reading = false;
        if (stopped) return;
        latest = model;
        onUpdate(model);
        if (isSettled(model)) return stop();
        if (readAgain) {
          readAgain = false;
          read();
        }
      })
      .catch((error: unknown) => {
        reading = false;
        if (stopped) return;
        stop();
        onError(error);
      });
  };
  const closeStream = sources.subscribeEvents(
    { modelId: id },
    {
      onOpen: read,
      onEvent: (event: ServerEvent) => {
        if (stopped || !('status' in event.data)) return;
        if (!latest || reading) return read();
        if (event.type === 'model.completed' || event.type === 'model.failed') return read();
        const { status, progress, error, name } = event.data;
        latest = { ...latest, status, progress, error, name };
        onUpdate(latest);
      },
      onUnavailable: () => {
        if (!stopped) stopPolling = pollModel(id, onUpdate, onError);
      },
    },
  );
  return stop;
}

/** Reads GET /api/models/:id every second until the model settles; the fallback of {@link followModel}. */
export function pollModel(
  id: string,
  onUpdate: (model: Model) => void,
  onError: (error: unknown) => void,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = (): void => {
    getModel(id)
      .then((model) => {
        if (stopped) return;
        onUpdate(model);
        if (!isSettled(model)) timer = setTimeout(tick, POLL_INTERVAL_MS);
      })
      .catch((error: unknown) => {
        if (!stopped) onError(error);
      });
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
