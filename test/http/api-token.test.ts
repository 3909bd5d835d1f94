import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { resolveApiToken } from '../../src/http/api-token.ts';

void describe('resolveApiToken', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-token-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  void it('generates a token once, keeps it in DATA_DIR/api-token and reuses it', () => {
    const dataDir = path.join(root, 'nested', 'data');
    const first = resolveApiToken(dataDir, undefined);
    assert.equal(first.source, 'generated');
    assert.equal(first.file, path.join(dataDir, 'api-token'));
    assert.match(first.token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(fs.readFileSync(first.file, 'utf8').trim(), first.token);
    if (process.platform !== 'win32') assert.equal(fs.statSync(first.file).mode & 0o777, 0o600);

    const second = resolveApiToken(dataDir, undefined);
    assert.deepEqual(second, { token: first.token, source: 'file', file: first.file });
  });

  void it('gives different data folders different tokens', () => {
    const a = resolveApiToken(path.join(root, 'a'), undefined);
    const b = resolveApiToken(path.join(root, 'b'), undefined);
    assert.notEqual(a.token, b.token);
  });

  void it('reads a token written by hand, ignoring surrounding whitespace', () => {
    fs.writeFileSync(path.join(root, 'api-token'), '  my-chosen-token  \n');
    assert.equal(resolveApiToken(root, undefined).token, 'my-chosen-token');
  });

  void it('lets API_TOKEN win without touching the stored token', () => {
    const stored = resolveApiToken(root, undefined);
    const configured = resolveApiToken(root, 'from-the-environment');
    assert.deepEqual(configured, { token: 'from-the-environment', source: 'env', file: stored.file });
    assert.equal(fs.readFileSync(stored.file, 'utf8').trim(), stored.token);
  });

  void it('writes nothing when API_TOKEN is set', () => {
    const dataDir = path.join(root, 'unused');
    resolveApiToken(dataDir, 'from-the-environment');
    assert.equal(fs.existsSync(dataDir), false);
  });

  void it('refuses a token file too short to be a token, naming the file', () => {
    for (const content of ['', '\n', 'short']) {
      const file = path.join(root, 'api-token');
      fs.writeFileSync(file, content);
      assert.throws(
        () => resolveApiToken(root, undefined),
        (error: Error) => error.message.includes(file),
      );
      assert.equal(fs.readFileSync(file, 'utf8'), content, 'the file is left for a person to fix');
    }
  });
});
