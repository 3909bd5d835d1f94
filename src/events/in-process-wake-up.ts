import { EventEmitter } from 'node:events';
import type { EventWakeUp } from './wake-up.ts';

/**
 * The wake-up within one process, for SQLite (one machine, usually one process). A `vitrine worker` beside a
 * `vitrine serve` on the same SQLite file is still heard: the stream reads the log on a timer too.
 */
export function createInProcessWakeUp(): EventWakeUp {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async notify(id) {
      emitter.emit('event', id);
    },
    async subscribe(listener) {
      emitter.on('event', listener);
      return () => emitter.off('event', listener);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}
