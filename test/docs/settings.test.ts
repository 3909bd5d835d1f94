// Every setting the service reads is written down where an operator looks: .env.example (which says it lists
// every setting) and the README.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The environment variables a source file reads by name (`text('NAME')`, `env.NAME`, `process.env.NAME`). */
function settingsReadBy(path: string): string[] {
  const source = read(path);
  const quoted = [...source.matchAll(/\(\s*'([A-Z][A-Z0-9_]{2,})'/g)].map((match) => match[1]!);
  const dotted = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]{2,})\b/g)].map((match) => match[1]!);
  return [...new Set([...quoted, ...dotted])];
}

const SETTINGS = [...settingsReadBy('src/config.ts'), ...settingsReadBy('src/storage/storage-settings.ts')];

void it('finds the settings the service reads', () => {
  for (const name of ['PORT', 'DATABASE_URL', 'GLB_COMPRESSION', 'LOOKUP_CACHE_MB', 'S3_ENDPOINT']) {
    assert.ok(SETTINGS.includes(name), `${name} is read by the configuration`);
  }
});

void it('lists every setting in .env.example', () => {
  const listed = new Set(
    [...read('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]),
  );
  assert.deepEqual(
    SETTINGS.filter((name) => !listed.has(name)),
    [],
  );
});

void it('names every setting in the README', () => {
  const readme = read('README.md');
  assert.deepEqual(
    SETTINGS.filter((name) => !readme.includes(`\`${name}`) && !readme.includes(`${name}=`)),
    [],
  );
});
