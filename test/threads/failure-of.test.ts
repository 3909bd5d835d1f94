// A 10,000-deep node tree overflowed the stack in the conversion thread; the pool reported a plain Error, so the
// job was retried three times (27–31 s) before failing. A RangeError from the thread is now a ConversionError,
// which the convert job turns into a PermanentJobError: it fails at once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ConversionError } from '../../src/pipeline/types.ts';
import { failureOf, processExitError } from '../../src/threads/pool-errors.ts';

void describe('failures reported by a conversion thread', () => {
  void it('makes input-driven RangeErrors permanent conversion errors', () => {
    for (const message of ['Maximum call stack size exceeded', 'Invalid typed array length: 3221225472']) {
      const error = failureOf('RangeError', message);
      assert.ok(error instanceof ConversionError);
      assert.match(error.message, /too deeply nested or too large to convert/);
      assert.ok(error.message.includes(message));
    }
  });

  void it('keeps conversion errors as they are and other failures retryable', () => {
    assert.ok(failureOf('ConversionError', 'The file is empty') instanceof ConversionError);
    const other = failureOf('Error', 'EIO: i/o error');
    assert.ok(!(other instanceof ConversionError));
    assert.equal(other.message, 'Conversion failed: EIO: i/o error');
  });
});

void describe('a conversion process that ended before it answered', () => {
  void it("names the memory limit when V8's own heap failure is on its standard error", () => {
    // A real heap failure: a process whose old generation is capped at 16 MiB fills it.
    const child = spawnSync(
      process.execPath,
      ['--max-old-space-size=16', '-e', 'const kept = []; for (;;) kept.push(new Array(100000).fill(1.5));'],
      { encoding: 'utf8' },
    );
    assert.notEqual(child.status, 0);
    const error = processExitError(child.status, child.signal, child.stderr, 16);
    assert.ok(error instanceof ConversionError);
    assert.equal(
      error.message,
      'The conversion needs more memory than the limit of 16 MB (CONVERSION_MAX_MEMORY_MB): it ran out of heap',
    );
  });

  void it('otherwise says how it ended, with the last line it wrote, and stays retryable', () => {
    const killed = processExitError(null, 'SIGKILL', '', 4096);
    assert.equal(killed.message, 'Conversion process stopped unexpectedly (signal SIGKILL)');
    assert.ok(!(killed instanceof ConversionError));
    const crashed = processExitError(1, null, 'starting\nError: Cannot find module x\n', 4096);
    assert.equal(
      crashed.message,
      'Conversion process stopped unexpectedly (exit code 1): Error: Cannot find module x',
    );
  });
});
