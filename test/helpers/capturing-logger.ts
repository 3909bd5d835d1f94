import { Writable } from 'node:stream';
import { pino } from 'pino';

/** A pino logger at `debug` whose JSON lines are kept for the test to read. */
export function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}
