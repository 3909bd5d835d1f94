// The properties panel and the property filter in headless Chromium against a real server: a wall of the IFC
// fixture building is selected (in the parts tree, and the view follows) and its property sets, quantities with
// units, type, storey and material show; a `Set.Name=value` filter narrows the tree to the external walls.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { IFC_WALLS, IFC_WALLS_STOREY, ifcWallsFixture } from '../fixtures/ifc-walls.ts';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import type { RunningServer } from './support/server-process.ts';
import { openViewerSession, SHOTS, viewShot, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-properties-token-0123456789';

let session: ViewerSession;
let server: RunningServer;
let page: Page;
let model: ModelRecord;

/** The rows of one property set in the panel, as `name: value`. */
async function setRows(on: Page, set: string): Promise<string[]> {
  const rows = on.locator(`.part-properties .property-set[data-set="${set}"] tr`);
  const texts = await rows.evaluateAll((found) =>
    found.map((row) => `${row.querySelector('th')?.textContent}: ${row.querySelector('td')?.textContent}`),
  );
  return texts;
}

void describe('part properties in the viewer', { timeout: 6 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    session = await openViewerSession('properties', TOKEN, { consoleErrors: true });
    ({ server, page } = session);
    const bytes = new Uint8Array(new TextEncoder().encode(ifcWallsFixture()));
    const uploaded = await session.client.upload({ name: 'walls.ifc', bytes });
    model = await session.client.waitCompleted(uploaded.id);
  });

  after(() => session?.close());

  void test('selecting a wall shows its property sets; the property filter narrows the tree', async () => {
    await page.goto(`${server.baseUrl}/#/models/${model.id}`);
    await viewShot(page, 'properties-view');
    const panel = page.locator('.part-properties');
    assert.match((await panel.textContent()) ?? '', /Select a part to see its properties/);

    await page.locator('.part-button', { hasText: 'North wall' }).click();
    await page.locator('.viewer[data-selected="1"]').waitFor();
    await page.locator('.part-properties .property-set[data-set="Pset_WallCommon"]').waitFor();
    assert.equal(await page.locator('.properties-of').textContent(), 'North wall');
    assert.deepEqual(await setRows(page, 'Pset_WallCommon'), [
      'Reference: WT-200',
      'IsExternal: Yes',
      'LoadBearing: Yes',
      'FireRating: REI 90',
    ]);
    assert.deepEqual(await setRows(page, 'Qto_WallBaseQuantities'), [
      'Length: 6 m',
      'NetSideArea: 18 m²',
      'NetVolume: 3.6 m³',
    ]);
    const element = await setRows(page, 'Element');
    for (const row of [
      'Class: IfcWall',
      'Type: Concrete 200',
      `Storey: ${IFC_WALLS_STOREY}`,
      'Material: Concrete',
    ])
      assert.ok(element.includes(row), `${row} in ${element.join(', ')}`);

    const filter = page.locator('.property-filter input');
    await filter.fill('Pset_WallCommon.IsExternal=true');
    await filter.press('Enter');
    const external = IFC_WALLS.filter((wall) => wall.external === true).map((wall) => wall.name);
    await page.locator('.property-filter-status', { hasText: `${external.length} parts have` }).waitFor();
    const shown = await page
      .locator('.parts-tree li:not([hidden]) > .part-button .part-name')
      .evaluateAll((names) => names.filter((name) => name.checkVisibility()).map((name) => name.textContent));
    assert.deepEqual(shown.sort(), [...external].sort());
    if (SHOTS) {
      await page.screenshot({ path: join(SHOTS, 'properties-page.png'), fullPage: true });
      await page.locator('.properties-section').screenshot({ path: join(SHOTS, 'properties-panel.png') });
    }

    await filter.fill('IsExternal');
    await filter.press('Enter');
    await page.locator('.property-filter-status', { hasText: 'Invalid where condition' }).waitFor();
    // The refused condition is the one failed request the page saw.
    assert.deepEqual(session.pageErrors, [
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });
});
