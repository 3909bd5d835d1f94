/**
 * Whether this page may write annotations and saved views. The viewer cannot ask the server what its token may
 * do, so edit controls show until a write is refused with 403 (a read token): then they all turn read-only.
 */
import { ApiError } from '../api/api-error.ts';
import { attempt, notifyError } from '../ui/notify.ts';

/** Shared by the annotation and view panels of one page. */
export class WriteAccess {
  private allowed = true;
  private readonly listeners = new Set<(allowed: boolean) => void>();

  /** False once the server refused a write. */
  get canWrite(): boolean {
    return this.allowed;
  }

  /** Calls `listener` now and whenever writing becomes impossible; returns the unsubscribe. */
  watch(listener: (allowed: boolean) => void): () => void {
    this.listeners.add(listener);
    listener(this.allowed);
    return () => this.listeners.delete(listener);
  }

  /** Runs a write, reporting its failure; a 403 also turns every watched control read-only. */
  attempt(context: string, action: () => Promise<unknown>): void {
    attempt(context, async () => {
      try {
        await action();
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 403)) throw error;
        this.allowed = false;
        for (const listener of this.listeners) listener(false);
        notifyError(`${error.message} (this token can only read)`, context);
      }
    });
  }
}
