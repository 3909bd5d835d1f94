// A .gltf with its .bin and three PNG textures, chosen together in the viewer's upload panel, becomes one model
// whose LOD 0 carries the three images; the same files dropped as a folder do too. The .gltf is made at test
// time by unpacking the barrel.glb sample (three PNG textures) with glTF-Transform.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const BARREL = join(SAMPLE_MODELS, 'glb/barrel.glb');
const TOKEN = 'e2e-multi-file-token-0123456789';
const CONVERSION_TIMEOUT_MS = 240_000;

/**
 * Dispatches a drop of the folder `barrel` holding the given files on the element. Written as page source: the
 * test runner's transform would add helpers the page does not have to a function written here.
 */
const DROP_FOLDER = `(zone, list) => {
  const fileEntry = (file) => ({
    isFile: true,
    isDirectory: false,
    name: file.name,
    fullPath: '/barrel/' + file.name,
    file: (resolve) => resolve(file),
  });
  let served = false;
  const folder = {
    isFile: false,
    isDirectory: true,
    name: 'barrel',
    fullPath: '/barrel',
    createReader: () => ({
      readEntries: (resolve) => {
        resolve(served ? [] : list.map(({ name, bytes }) => fileEntry(new File([new Uint8Array(bytes)], name))));
        served = true;
      },
    }),
  };
  const transfer = new DataTransfer();
  Object.defineProperty(transfer, 'items', { value: [{ webkitGetAsEntry: () => folder }] });
  zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
}`;

void describe(
  'uploading a model with its resources in the viewer',
  { timeout: 10 * 60_000, skip: skipWithoutChromium },
  () => {
    let dataDir: string;
    let gltfDir: string;
    let server: RunningServer | undefined;
    let browser: Browser | undefined;
    let page: Page;
    const pageErrors: string[] = [];

    before(async () => {
      assert.ok(existsSync(BARREL), `sample model missing: ${BARREL}`);
      ensureViewerBuilt(REPO);
      dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-multi-'));
      gltfDir = join(dataDir, 'input', 'barrel');
      await mkdir(gltfDir, { recursive: true });
      const io = await createNodeIO();
      await io.write(join(gltfDir, 'barrel.gltf'), await io.read(BARREL));
      server = await startServer({
        repoDir: REPO,
        dataDir: join(dataDir, 'data'),
        apiToken: TOKEN,
        timeoutMs: 60_000,
      });
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
      await page.goto(server.baseUrl + '/');
      await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    /** Waits until the upload item titled `title` settles and returns its status and model id. */
    const settle = async (title: string): Promise<{ status: string; id: string; text: string }> => {
      const item = page.locator(`.upload-item[data-file="${title}"]`).first();
      await item.waitFor();
      await page.waitForFunction(
        (name) => {
          const status = document.querySelector<HTMLElement>(`.upload-item[data-file="${name}"]`)?.dataset
            .status;
          return status === 'completed' || status === 'failed' || status === 'upload-failed';
        },
        title,
        { timeout: CONVERSION_TIMEOUT_MS, polling: 500 },
      );
      const href =
        (await item
          .locator('a')
          .first()
          .getAttribute('href')
          .catch(() => null)) ?? '';
      return {
        status: (await item.getAttribute('data-status')) ?? '',
        id: href.replace('#/models/', ''),
        text: (await item.textContent()) ?? '',
      };
    };

    /** The images of a model's LOD 0, read back with glTF-Transform. */
    const lod0Images = async (id: string): Promise<string[]> => {
      const model = (await (
        await fetch(`${server!.baseUrl}/api/models/${id}`, { headers: { 'X-API-Token': TOKEN } })
      ).json()) as { data: { model_url: string; format: string; original_filename: string } };
      assert.equal(model.data.format, 'gltf');
      assert.equal(model.data.original_filename, 'barrel.gltf');
      const glb = new Uint8Array(await (await fetch(model.data.model_url)).arrayBuffer());
      const document = await (await createNodeIO()).readBinary(glb);
      return document
        .getRoot()
        .listTextures()
        .map((texture) => `${texture.getMimeType()} ${texture.getImage()?.byteLength ?? 0}`);
    };

    void test('the .gltf, its .bin and three PNGs chosen together convert with the textures', async () => {
      const names = await readdir(gltfDir);
      assert.equal(names.filter((name) => name.endsWith('.png')).length, 3, names.join(', '));
      assert.equal(names.length, 5, names.join(', '));
      await page
        .locator('.upload-panel input[type=file]')
        .setInputFiles(names.map((name) => join(gltfDir, name)));
      const done = await settle('barrel.gltf + 4 files');
      assert.equal(done.status, 'completed', done.text);
      const images = await lod0Images(done.id);
      assert.equal(images.length, 3, images.join(', '));
      // Served levels carry their textures as WebP (LOD_TEXTURES=webp, the default).
      for (const image of images) assert.match(image, /^image\/webp [1-9]\d{4,}$/);
      await page.locator('.upload-panel').screenshot({ path: join(dataDir, 'upload-panel.png') });
    });

    void test('the same files dropped as their folder convert the same way', async () => {
      const files = await Promise.all(
        (await readdir(gltfDir)).map(async (name) => ({
          name,
          bytes: [...(await readFile(join(gltfDir, name)))],
        })),
      );
      // A real drop of a folder hands over directory entries; Chromium builds them only for files dragged from the
      // OS, so the page is given entries shaped the same way (FileSystemDirectoryEntry and FileSystemFileEntry).
      await page.locator('.drop-zone').evaluate(DROP_FOLDER, files);
      const done = await settle('barrel.gltf + 4 files');
      assert.equal(done.status, 'completed', done.text);
      assert.equal((await lod0Images(done.id)).length, 3);
      assert.deepEqual(pageErrors, []);
    });
  },
);
