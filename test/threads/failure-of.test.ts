// A 10,000-deep node tree overflowed the stack in the conversion thread; the pool reported a plain Error, so the
// job was retried three times (27–31 s) before failing. A RangeError from the thread is now a ConversionError,
// which the convert job turns into a PermanentJobError: it fails at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversionError } from '../../src/pipeline/types.ts';
import { failureOf } from '../../src/threads/pool-errors.ts';

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
