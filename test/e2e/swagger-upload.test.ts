// Trying the upload in Swagger UI (/docs): the form comes first, its optional fields start empty (nothing made up
// is sent, so a trial upload is not scaled by a pre-filled unit), and a .gltf with its .bin and PNG chosen as
// three `file` items becomes one model.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const BOX = join(SAMPLE_MODELS, 'gltf/BoxTextured');
const TOKEN = 'e2e-swagger-token-0123456789';

void describe('the upload in Swagger UI', { timeout: 3 * 60_000, skip: skipWithoutChromium }, () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-swagger-'));
    server = await startServer({
      repoDir: REPO,
      dataDir,
      apiToken: TOKEN,
      timeoutMs: 60_000,
      command: 'serve',
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  void test('offers the form first with empty optional fields, and uploads a .gltf with its files', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.setExtraHTTPHeaders({ 'X-API-Token': TOKEN });
    await page.goto(`${server!.baseUrl}/docs`);
    const operation = page.locator('#operations-models-uploadModel');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();

    const contentType = operation.locator('.opblock-section-request-body select').first();
    assert.equal(await contentType.inputValue(), 'multipart/form-data');
    const field = (name: string) => operation.locator(`[data-property-name="${name}"]`);
    assert.equal(await field('name').locator('input[type=text]').inputValue(), '');
    assert.equal(await field('description').locator('input[type=text]').inputValue(), '');
    assert.equal(await field('unit').locator('select').inputValue(), '');
    assert.equal(await field('up').locator('select').inputValue(), '');

    const names = ['BoxTextured.gltf', 'BoxTextured0.bin', 'CesiumLogoFlat.png'];
    for (let more = 1; more < names.length; more++) {
      await field('file')
        .getByRole('button', { name: /Add .*item/ })
        .click();
    }
    const inputs = field('file').locator('input[type=file]');
    assert.equal(await inputs.count(), names.length);
    for (const [index, name] of names.entries()) await inputs.nth(index).setInputFiles(join(BOX, name));

    const answer = page.waitForResponse(
      (response) => response.url().endsWith('/api/models') && response.request().method() === 'POST',
    );
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answer;
    const body = (await response.json()) as { data: Record<string, unknown> };
    assert.equal(response.status(), 201, JSON.stringify(body));
    assert.equal(body.data.original_filename, 'BoxTextured.gltf');
    assert.equal(body.data.name, 'BoxTextured', 'no name was sent');
    assert.equal(body.data.unit, null, 'no unit was sent');
    assert.equal(body.data.up, null, 'no up axis was sent');
    await operation.screenshot({ path: join(dataDir, 'swagger.png') });
  });
});
