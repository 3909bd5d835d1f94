/**
 * Tells every API process that the event log has grown. It carries only the newest id: the log is the truth, and
 * a lost wake-up costs a little latency (the stream also reads the log on a timer), never an event.
 */
export interface EventWakeUp {
  /** Announces that events up to `id` are committed. */
  notify(id: number): Promise<void>;
  /** Calls `listener` on every announcement from any process; returns a function that stops listening. */
  subscribe(listener: (id: number) => void): Promise<() => void>;
  /** Closes the connections this transport opened. */
  close(): Promise<void>;
}
