// Which failures of a conversion are the server's (answered with SYSTEM_FAILURE, details kept in the log) rather than
// the file's. A soak under faults found two that showed their raw text to the client: the pg pool's "Connection
// terminated due to connection timeout" (the database frozen through the last attempt) and the S3 store's
// "No stored object models/<id>/source/<file>", which names a storage key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSystemError } from '../../src/catalog/conversion/convert-model-job.ts';
import { ConversionError } from '../../src/pipeline/types.ts';
import { StorageUnavailableError } from '../../src/storage/storage-unavailable.ts';

/** An Error carrying the fields Node and the drivers put on theirs. */
const errorWith = (message: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), fields);

void describe('isSystemError', () => {
  void it("counts outages and missing stored files as the server's failures", () => {
    for (const error of [
      errorWith('Connection terminated due to connection timeout'),
      errorWith('timeout exceeded when trying to connect'),
      errorWith('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      errorWith("ENOENT: no such file or directory, open '/data/x'", { code: 'ENOENT', syscall: 'open' }),
      errorWith('No stored object models/m/source/a.ply', { code: 'ENOENT' }),
      new StorageUnavailableError('read', new Error('connect ECONNREFUSED')),
    ])
      assert.ok(isSystemError(error), error.message);
  });

  void it("leaves the file's own failures to be shown as they are", () => {
    for (const error of [
      new ConversionError('Invalid glTF: missing buffer'),
      errorWith('The importer stopped making progress for 15 s: the file is probably damaged or truncated'),
      errorWith('Unsupported format'),
    ])
      assert.ok(!isSystemError(error), error.message);
  });
});
