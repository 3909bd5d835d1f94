/**
 * Whether this page may write annotations and saved views. The page asks the server what its token may do and
 * turns the edit controls read-only for a read token before any is used; a write refused with 403 all the same
 * (a token made read-only or revoked meanwhile) turns them read-only too.
 */
import { ApiError } from '../api/api-error.ts';
import { currentToken } from '../api/current-token.ts';
import { attempt, notifyError } from '../ui/notify.ts';

/** Shared by the annotation and view panels of one page. */
export class WriteAccess {
  private allowed = true;
  private readonly listeners = new Set<(allowed: boolean) => void>();

  /** Asks the server for the token's scope; until it answers, the controls show as writable. */
  constructor() {
    // A failed question changes nothing: the 403 of a refused write still turns the controls read-only.
    currentToken().then(
      (token) => {
        if (token.scope === 'read') this.refuse();
      },
      () => undefined,
    );
  }

  /** False for a read token, or once the server refused a write. */
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
        this.refuse();
        notifyError(`${error.message} (this token can only read)`, context);
      }
    });
  }

  /** Turns every watched control read-only, once. */
  private refuse(): void {
    if (!this.allowed) return;
    this.allowed = false;
    for (const listener of this.listeners) listener(false);
  }
}
