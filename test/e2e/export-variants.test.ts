// The GLB of `materials=variants` in headless Chromium: three.js's GLTFLoader reads it, and choosing each variant
// the way three.js's own variants example does (the mappings GLTFLoader keeps in `userData.gltfExtensions`) changes
// the material of the part the configuration paints, to its colour, and of no other part.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { serveMadeUpOrigin, type OriginLog } from './support/made-up-origin.ts';
import { GREY, PAINTS, variantsChairGlb, type Rgb } from './support/variants-chair.ts';

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

let browser: Browser | undefined;
let page: Page;
let origin: OriginLog;

function assertRgb(actual: Rgb, expected: Rgb, what: string): void {
  assert.ok(
    actual.every((channel, i) => Math.abs(channel - expected[i]) <= 1),
    `${what}: ${actual.join(',')} is not ${expected.join(',')}`,
  );
}

void describe('material variants in three.js', { timeout: 3 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    const glb = await variantsChairGlb();
    browser = await launchChromium();
    page = await browser.newPage();
    const files = {
      '/': { contentType: 'text/html', body: PAGE },
      '/chair.glb': { contentType: 'model/gltf-binary', body: glb },
    };
    origin = await serveMadeUpOrigin(page, ORIGIN, files, ['/three/']);
    await page.goto(`${ORIGIN}/`);
  });

  after(async () => {
    await browser?.close();
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
          // Its default material, or the same one again through the mapping that names it for this variant.
          const before = loaded.defaults[mesh];
          assertRgb(shown.rgb, before.rgb, `${name} leaves the colour of ${mesh}`);
          assert.equal(shown.textured, before.textured, `${name} leaves the texture of ${mesh}`);
        }
      }
    }
    assert.deepEqual(origin.outside, [], 'the page asked for nothing from elsewhere');
  });
});
