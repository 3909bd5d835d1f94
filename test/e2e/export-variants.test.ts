// The GLB of `materials=variants` in headless Chromium: three.js's GLTFLoader reads it, and choosing each variant
// the way three.js's own variants example does (the mappings GLTFLoader keeps in `userData.gltfExtensions`) changes
// the material of the part the configuration paints, to its colour, and of no other part.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { catalogApi } from '../helpers/catalog-api.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, notRendered, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { texturedPartGroup, texturedPartsGlb, type TexturedPart } from '../exports/textured-parts.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** A made-up origin the page is served from: every request to it is answered from here, none leaves the machine. */
const ORIGIN = 'http://variants.test';
/**
 * The page: three.js's modules as they are installed, found through an import map as a site would publish them,
 * and a script that loads the GLB, then chooses each variant in turn as three.js's variants example does, and
 * notes what each mesh shows by default and under each variant in `window.loaded` (see {@link Loaded}). Plain
 * JavaScript, served as is.
 */
const PAGE = `<!doctype html>
<script type="importmap">{"imports":{"three":"/three/build/three.module.js"}}</script>
<script type="module">
import { GLTFLoader } from '/three/examples/jsm/loaders/GLTFLoader.js';
window.loaded = (async () => {
  const gltf = await new GLTFLoader().loadAsync('/chair.glb');
  const variants = gltf.parser.json.extensions.KHR_materials_variants.variants.map((variant) => variant.name);
  const meshes = [];
  gltf.scene.traverse((object) => { if (object.isMesh) meshes.push(object); });
  const defaults = new Map(meshes.map((mesh) => [mesh, mesh.material]));
  // getHex gives the colour in sRGB, as the material service states it.
  const shown = () => Object.fromEntries(meshes.map((mesh) => {
    const hex = mesh.material.color.getHex();
    return [mesh.name, {
      changed: mesh.material !== defaults.get(mesh),
      rgb: [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255],
      textured: Boolean(mesh.material.map),
    }];
  }));
  const result = { variants, defaults: shown(), byVariant: {} };
  for (const [index, name] of variants.entries()) {
    for (const mesh of meshes) {
      const mappings = mesh.userData.gltfExtensions?.KHR_materials_variants?.mappings ?? [];
      const mapping = mappings.find((candidate) => candidate.variants.includes(index));
      mesh.material = mapping ? await gltf.parser.getDependency('material', mapping.material) : defaults.get(mesh);
    }
    result.byVariant[name] = shown();
  }
  return result;
})();
</script>`;

type Rgb = [number, number, number];
/** Each configuration: the part it paints and the colour it paints it. */
const PAINTS: { name: string; part: TexturedPart; rgb: Rgb }[] = [
  { name: 'Red seat', part: 'Seat', rgb: [200, 20, 20] },
  { name: 'Green back', part: 'Back', rgb: [20, 180, 40] },
  { name: 'Blue legs', part: 'Legs', rgb: [10, 30, 250] },
];
const GREY: Rgb = [120, 120, 120];

/** What a mesh shows under one variant: whether its material is another than its default, its colour, its map. */
interface Shown {
  changed: boolean;
  rgb: Rgb;
  textured: boolean;
}

/** What the page makes of the GLB: the variants' names, each mesh's default, and what each variant shows. */
interface Loaded {
  variants: string[];
  defaults: Record<string, Shown>;
  byVariant: Record<string, Record<string, Shown>>;
}

let testApp: TestApp;
let browser: Browser | undefined;
let page: Page;
let glb: Buffer;

function assertRgb(actual: Rgb, expected: Rgb, what: string): void {
  assert.ok(
    actual.every((channel, i) => Math.abs(channel - expected[i]) <= 1),
    `${what}: ${actual.join(',')} is not ${expected.join(',')}`,
  );
}

void describe('material variants in three.js', { timeout: 3 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    testApp = await createTestApp('sqlite');
    testApp.startJobRunner(notRendered);
    const api = catalogApi(testApp.app, testApp.auth);
    const materials = materialApi(testApp.app, testApp.auth);
    const prefix = `variants-e2e-${Date.now()}`;
    const model = await api.create('chair.glb', await texturedPartsGlb(prefix), { name: 'Chair' });
    await waitForStatus(testApp.app, model.id, ['completed']);
    const grey = await materials.create({ name: 'grey', diffuse_r: 120, diffuse_g: 120, diffuse_b: 120 });
    await materials.bind(grey.id, [texturedPartGroup(prefix, 'Seat')]);
    for (const { name, part, rgb } of PAINTS) {
      const [diffuse_r, diffuse_g, diffuse_b] = rgb;
      const material = await materials.create({ name, diffuse_r, diffuse_g, diffuse_b });
      const made = await api.call('POST', `/${model.id}/configurations`, { name });
      assert.equal(made.status, 201, made.text);
      const bound = await api.call('PUT', `/${model.id}/configurations/${made.json.data.id}/bindings`, {
        bindings: [{ group_id: texturedPartGroup(prefix, part), material_id: material.id }],
      });
      assert.equal(bound.status, 200, bound.text);
    }
    const url = `/api/models/${model.id}/export?format=glb&materials=variants`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await testApp.app.inject({ method: 'GET', url, headers: testApp.auth });
      if (answer.statusCode === 200) {
        glb = answer.rawPayload;
        break;
      }
      assert.equal(answer.statusCode, 202, answer.body);
      assert.ok(Date.now() < deadline, 'the export is made within a minute');
      await new Promise((done) => setTimeout(done, 50));
    }

    browser = await launchChromium();
    page = await browser.newPage();
    await page.route(`${ORIGIN}/**`, async (route) => {
      const { pathname } = new URL(route.request().url());
      if (pathname === '/') return route.fulfill({ contentType: 'text/html', body: PAGE });
      if (pathname === '/chair.glb') return route.fulfill({ contentType: 'model/gltf-binary', body: glb });
      if (pathname.startsWith('/three/')) {
        const file = join(REPO, 'node_modules', pathname);
        return route.fulfill({ contentType: 'text/javascript', body: await readFile(file) });
      }
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await page.goto(`${ORIGIN}/`);
  });

  after(async () => {
    await browser?.close();
    await testApp?.close();
  });

  void test('GLTFLoader loads the variants, and each paints its part and no other', async () => {
    const loaded = await page.evaluate(() => (window as unknown as { loaded: Promise<Loaded> }).loaded);

    assert.deepEqual(
      loaded.variants,
      PAINTS.map(({ name }) => name),
    );
    assert.deepEqual(Object.keys(loaded.defaults).sort(), ['Back', 'Legs', 'Seat']);
    assertRgb(loaded.defaults.Seat.rgb, GREY, 'the seat by default');
    assert.ok(
      loaded.defaults.Back.textured && loaded.defaults.Legs.textured,
      'the others keep their texture',
    );
    for (const { name, part, rgb } of PAINTS) {
      for (const [mesh, shown] of Object.entries(loaded.byVariant[name])) {
        if (mesh === part) {
          assert.ok(shown.changed, `${name} changes the material of ${mesh}`);
          assertRgb(shown.rgb, rgb, `${mesh} in ${name}`);
        } else {
          assert.equal(shown.changed, false, `${name} leaves ${mesh} as it was`);
        }
      }
    }
  });
});
