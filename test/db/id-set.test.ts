import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { describe, it } from 'node:test';
import { inStringSet, postgresTextArray, stringSet } from '../../src/db/id-set.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';

// Group ids are any strings but U+0000: the ones an array literal or a JSON text must escape or quote.
const AWKWARD = [
  'plain',
  '',
  ' ',
  'NULL',
  'null',
  'a,b',
  '{braces}',
  'say "hi"',
  'back\\slash',
  '\\"',
  'trailing\\',
  'tab\there\nnewline',
  'ünïcödé 部品 🚗',
  "it's",
];

/** What pg itself sends for a JavaScript array parameter. */
const pgArrayText = createRequire(import.meta.url)('pg/lib/utils.js').prepareValue as (
  value: unknown,
) => string;

void describe('postgresTextArray', () => {
  void it('writes the array literal pg writes for the same strings', () => {
    assert.equal(postgresTextArray(AWKWARD), pgArrayText(AWKWARD));
    assert.equal(postgresTextArray(['one']), pgArrayText(['one']));
    assert.equal(postgresTextArray([]), pgArrayText([]));
  });
});

for (const dialect of testDialects()) {
  void describe(`id sets (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('reads every string back as it was sent', async () => {
      const { rows } = await sql<{
        value: string;
      }>`select value from (${stringSet(dialect, AWKWARD)}) as ids`.execute(database().db);
      assert.deepEqual(rows.map((row) => row.value).sort(), [...AWKWARD].sort());
    });

    void it('matches exactly the strings of the set', async () => {
      const wanted = AWKWARD.filter((_, i) => i % 2 === 0);
      const { rows } = await sql<{ value: string }>`
        select value from (${stringSet(dialect, AWKWARD)}) as ids
        where ${inStringSet('value', dialect, wanted)}`.execute(database().db);
      assert.deepEqual(rows.map((row) => row.value).sort(), [...wanted].sort());
    });
  });
}
