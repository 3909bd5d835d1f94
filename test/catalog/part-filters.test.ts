import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/http/api-error.ts';
import { parseWhere } from '../../src/catalog/part-filters.ts';

void test('where splits Set.Name=value at the first dot and the first = after it', () => {
  assert.deepEqual(parseWhere(['Pset_WallCommon.IsExternal=true', 'Dims.Width.mm=2.5', 'Tag.Code=a=b']), [
    { set_name: 'Pset_WallCommon', property_name: 'IsExternal', value_type: 'boolean', value: 'true' },
    { set_name: 'Dims', property_name: 'Width.mm', value_type: 'number', value: '2.5' },
    { set_name: 'Tag', property_name: 'Code', value_type: 'string', value: 'a=b' },
  ]);
});

void test('a quoted set name may hold dots', () => {
  assert.deepEqual(parseWhere(['"Pset.Custom.v2".Fire Rating="60"']), [
    { set_name: 'Pset.Custom.v2', property_name: 'Fire Rating', value_type: 'string', value: '60' },
  ]);
});

void test('a condition without a set, a name or a closing quote is a 400 that names it', () => {
  for (const bad of ['IsExternal=true', '.Name=1', 'Set.=1', '"Open.Name=1', '"".Name=1']) {
    assert.throws(
      () => parseWhere([bad]),
      (error: unknown) =>
        error instanceof ApiError && error.statusCode === 400 && error.message.includes(`"${bad}"`),
      bad,
    );
  }
});
