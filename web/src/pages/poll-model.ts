/** Follows a model's conversion by polling GET /api/models/:id until it settles. */
import { getModel } from '../api/catalog-api.ts';
import type { Model } from '../api/types.ts';

/** How often the conversion state is read. */
export const POLL_INTERVAL_MS = 1000;

/** True once the model will not change without a new request (completed or failed). */
export function isSettled(model: Model): boolean {
  return model.status === 'completed' || model.status === 'failed';
}

/**
 * Calls `onUpdate` with each state read until the model settles; `onError` receives a failed read,
 * after which polling stops. Returns a function that stops polling early.
 */
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
