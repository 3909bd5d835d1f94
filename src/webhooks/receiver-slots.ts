/** Attempts in flight per receiver in one process, so a receiver that never answers holds few delivery slots. */
export interface ReceiverSlots {
  /** Takes a slot for the receiver and returns the function that frees it; undefined when all its slots are taken. */
  take(receiver: string): (() => void) | undefined;
  /**
   * How long to put off an attempt to a busy receiver: as long as its last attempt took, or as its oldest attempt in
   * flight has taken so far when that is longer (a receiver that stopped answering is asked less and less often).
   */
  deferMs(receiver: string): number;
}

// Bounds of a deferral: often enough that a fast receiver's backlog drains, rarely enough that waiting jobs of a
// hanging one are not claimed over and over.
const MIN_DEFER_MS = 250;
const FIRST_DEFER_MS = 1_000;
// Receivers whose last duration is remembered; past this the memory starts afresh.
const MAX_REMEMBERED = 10_000;

/** Slots of at most `perReceiver` attempts at once per receiver; a deferral never exceeds `maxDeferMs`. */
export function createReceiverSlots(perReceiver: number, maxDeferMs: number): ReceiverSlots {
  // Start times of the attempts in flight, oldest first.
  const inFlight = new Map<string, number[]>();
  const lastDurationMs = new Map<string, number>();
  return {
    take(receiver) {
      const started = inFlight.get(receiver) ?? [];
      if (started.length >= perReceiver) return undefined;
      const at = Date.now();
      started.push(at);
      inFlight.set(receiver, started);
      let freed = false;
      return () => {
        if (freed) return;
        freed = true;
        started.splice(started.indexOf(at), 1);
        if (started.length === 0) inFlight.delete(receiver);
        if (lastDurationMs.size >= MAX_REMEMBERED) lastDurationMs.clear();
        lastDurationMs.set(receiver, Date.now() - at);
      };
    },
    deferMs(receiver) {
      const oldest = inFlight.get(receiver)?.[0];
      const waited = oldest === undefined ? 0 : Date.now() - oldest;
      const typical = Math.max(lastDurationMs.get(receiver) ?? FIRST_DEFER_MS, waited);
      // Jitter spreads the waiting jobs so they do not all come back at the same moment.
      const jittered = typical * (1 + Math.random() / 2);
      return Math.round(Math.min(maxDeferMs, Math.max(MIN_DEFER_MS, jittered)));
    },
  };
}
