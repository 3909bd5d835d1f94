// The IFC importer stops reading properties once the model's cap is spent, and keeps what the cap kept before.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { createIfcImporter } from '../../src/pipeline/import/ifc/import-ifc.ts';
import { boundProperties } from '../../src/pipeline/part-properties.ts';
import type { PartProperties } from '../../src/pipeline/part-properties.ts';
import { MODELS, recordingContext } from './support.ts';

const FILE = path.join(MODELS, 'ifc/AC14-FZK-Haus.ifc');

async function listedProperties(propertyBudget?: number) {
  const importer = createIfcImporter(propertyBudget === undefined ? {} : { propertyBudget });
  const context = recordingContext();
  const { document } = await importer.read({ file: FILE, dir: path.dirname(FILE), format: 'ifc' }, context);
  const parts = extractParts(document, { modelId: 'm' }, recordingContext());
  return { properties: parts.map((part) => part.properties), lines: context.lines };
}

const countOf = (properties: PartProperties) =>
  Object.values(properties).reduce((sum, set) => sum + Object.keys(set).length, 0);

void test('a property budget keeps the properties the cap kept of every part read, in the order parts are listed', async () => {
  const whole = await listedProperties();
  const total = whole.properties.reduce((sum, properties) => sum + countOf(properties), 0);
  assert.ok(total > 500, `FZK-Haus has ${total} properties`);
  const budget = Math.floor(total / 3);
  const budgeted = await listedProperties(budget);

  // What extract-parts's cap keeps of every part's properties when all of them are read.
  let left = budget;
  const capped = whole.properties.map((properties) => {
    const bounded = boundProperties(properties, left);
    left -= bounded.count;
    return bounded.properties;
  });
  assert.deepEqual(budgeted.properties, capped);
  assert.equal(
    budgeted.properties.reduce((sum, properties) => sum + countOf(properties), 0),
    budget,
  );
  // The parts past the budget were not read at all, and the warning counts them.
  const unread = budgeted.properties.filter((properties) => countOf(properties) === 0).length;
  assert.ok(unread > 10, `${unread} parts past the budget`);
  const warning = budgeted.lines.find((line) => line.includes('not read past'));
  assert.match(
    warning ?? '',
    /warn: import-ifc: \d+ properties dropped past the caps .*; \d+ products' properties/,
  );
  assert.equal(whole.lines.filter((line) => line.includes('not read past')).length, 0);
});
