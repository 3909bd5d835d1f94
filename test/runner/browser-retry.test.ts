// Which failed files the runner runs again: browser suites alone, never when any other file failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RETRIED_FILES, browserFilesToRetry, failedFile } from './browser-retry.ts';

void describe('the browser-suite retry', () => {
  void it('reads the file off a failure line, and nothing off a line with none', () => {
    assert.equal(
      failedFile('  test/e2e/tiles-open.test.ts › a part picked: page.goto: Timeout › 30000ms'),
      'test/e2e/tiles-open.test.ts',
    );
    assert.equal(failedFile('  (no file) › setup: failed'), undefined);
    assert.equal(failedFile('no separator at all'), undefined);
  });

  void it('runs each failed browser file again once, in order', () => {
    assert.deepEqual(
      browserFilesToRetry([
        '  test/e2e/tiles-open.test.ts › one: timeout',
        '  test/e2e/export-menu.test.ts › two: timeout',
        '  test/e2e/tiles-open.test.ts › three: timeout',
      ]),
      ['test/e2e/export-menu.test.ts', 'test/e2e/tiles-open.test.ts'],
    );
  });

  void it('runs nothing again when a failure is outside the browser suites, names no file, or none was listed', () => {
    assert.deepEqual(
      browserFilesToRetry([
        '  test/e2e/viewer.test.ts › one: timeout',
        '  test/db/pool.test.ts › two: wrong',
      ]),
      [],
    );
    assert.deepEqual(browserFilesToRetry(['  (no file) › hook: failed']), []);
    assert.deepEqual(browserFilesToRetry([]), []);
  });

  void it('runs nothing again when more browser files failed than a busy machine explains', () => {
    const lines = (count: number) =>
      Array.from({ length: count }, (_, i) => `  test/e2e/suite-${i}.test.ts › test: timeout`);
    assert.equal(browserFilesToRetry(lines(MAX_RETRIED_FILES)).length, MAX_RETRIED_FILES);
    assert.deepEqual(browserFilesToRetry(lines(MAX_RETRIED_FILES + 1)), []);
  });
});
