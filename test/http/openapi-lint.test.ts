import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const REDOCLY = path.join(REPO, 'node_modules', '.bin', 'redocly');

interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean; schema: { type: string } }[];
  requestBody?: { content: Record<string, { schema: { required?: string[]; properties: object } }> };
}

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

void describe('the OpenAPI document', () => {
  let testApp: TestApp;
  let document: { paths: Record<string, Record<string, Operation>>; servers: { url: string }[] };

  before(async () => {
    testApp = await createTestApp('sqlite');
    const response = await testApp.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(response.statusCode, 200);
    document = JSON.parse(response.body) as typeof document;
  });
  after(() => testApp.close());

  const operations = (): [string, Operation][] =>
    Object.entries(document.paths).flatMap(([url, methods]) =>
      Object.entries(methods).map(([method, operation]): [string, Operation] => [
        `${method.toUpperCase()} ${url}`,
        operation,
      ]),
    );

  void it('passes the Redocly linter with its recommended rules: no error, no warning', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-openapi-')), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document));
    const run = spawnSync(
      REDOCLY,
      ['lint', file, '--config', path.join(REPO, 'redocly.yaml'), '--format=json'],
      {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    assert.ok(run.stdout, `the linter printed nothing: ${run.error?.message ?? run.stderr}`);
    const report = JSON.parse(run.stdout) as LintReport;
    const problems = report.problems.map(
      (problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
  });

  void it('names every operation with a unique operationId', () => {
    const ids = operations().map(([name, operation]) => {
      assert.ok(operation.operationId, `${name} has an operationId`);
      return operation.operationId;
    });
    assert.ok(ids.length >= 35, `${ids.length} operations`);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  void it('documents both uploads as multipart bodies with their file field required', () => {
    for (const [url, field] of [
      ['/api/models', 'file'],
      ['/api/models/{id}/thumbnail', 'thumbnail'],
    ] as const) {
      const body = document.paths[url]?.post?.requestBody?.content['multipart/form-data'];
      assert.ok(body, `POST ${url} has a multipart request body`);
      assert.deepEqual(body.schema.required, [field]);
    }
  });

  void it('lists the optional Idempotency-Key request header of the model upload', () => {
    const headers = (document.paths['/api/models']?.post?.parameters ?? []).filter(
      (parameter) => parameter.in === 'header',
    );
    const key = headers.find((parameter) => parameter.name.toLowerCase() === 'idempotency-key');
    assert.ok(key, `POST /api/models lists the header: ${JSON.stringify(headers)}`);
    assert.notEqual(key.required, true);
    assert.equal(key.schema.type, 'string');
  });

  void it('names no path with a trailing slash, and a server', () => {
    assert.deepEqual(
      Object.keys(document.paths).filter((url) => url.length > 1 && url.endsWith('/')),
      [],
    );
    assert.deepEqual(document.servers, [{ url: '/' }]);
  });
});
