import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createTestDatabase, testDialects } from '../helpers/databases.ts';
import { createTestApp } from '../helpers/test-app.ts';

// Port 1 on the loopback refuses at once: a server that is configured but not there.
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/test';

void describe('a configured but unreachable PostgreSQL', () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.TEST_DATABASE_URL;
    process.env.TEST_DATABASE_URL = UNREACHABLE;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = saved;
  });

  void it('is still one of the dialects to test', () => {
    assert.deepEqual(testDialects(), ['sqlite', 'postgres']);
  });

  void it('makes creating the test database throw, so the suite fails instead of skipping', async () => {
    await assert.rejects(createTestDatabase('postgres'), /ECONNREFUSED|connect/);
    await assert.rejects(createTestApp('postgres'), /ECONNREFUSED|connect/);
  });
});
