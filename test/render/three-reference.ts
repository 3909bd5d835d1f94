// Reference renders for the thumbnail tests and benchmark: the same GLB drawn by three.js with
// WebGL (SwiftShader) in Debian's headless Chromium, with the camera frameCamera() chose.
import { access, constants, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import type { FramedCamera } from '../../src/render/camera.ts';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ORIGIN = 'http://vitrine.test';
const THREE_DIR = fileURLToPath(new URL('../../node_modules/three/', import.meta.url));

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8">
<script type="importmap">{ "imports": { "three": "/three/build/three.module.js" } }</script>
</head><body style="margin:0">
<canvas id="c"></canvas>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from '/three/examples/jsm/loaders/GLTFLoader.js';
window.renderGlb = async ({ camera: c, width, height }) => {
  const gltf = await new GLTFLoader().loadAsync('/model.glb');
  const canvas = document.getElementById('c');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, alpha: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(width, height, false);
  renderer.setClearColor(0x000000, 0);
  const scene = gltf.scene;
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 1.5));
  const key = new THREE.DirectionalLight(0xffffff, 2);
  key.position.set(c.eye[0], c.eye[1] + 10, c.eye[2]);
  scene.add(key);
  const camera = new THREE.PerspectiveCamera(c.fovY, width / height, c.near, c.far);
  camera.position.set(c.eye[0], c.eye[1], c.eye[2]);
  camera.up.set(c.up[0], c.up[1], c.up[2]);
  camera.lookAt(c.target[0], c.target[1], c.target[2]);
  camera.updateProjectionMatrix();
  renderer.render(scene, camera);
  const url = canvas.toDataURL('image/png');
  renderer.dispose();
  return url;
};
window.ready = true;
</script></body></html>`;

/** A running browser page that renders GLBs with three.js. */
export interface ReferenceRenderer {
  /** Renders `glb` with `camera` and returns straight-alpha RGBA bytes, row 0 at the top. */
  render(glb: Uint8Array, camera: FramedCamera, width: number, height: number): Promise<Uint8Array>;
  /** Closes the browser. */
  close(): Promise<void>;
}

/** Starts headless Chromium on the reference page; throws when Chromium or WebGL is unavailable. */
export async function launchReference(): Promise<ReferenceRenderer> {
  await access(CHROMIUM_PATH, constants.X_OK).catch(() => {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install -y chromium)`,
    );
  });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
    ],
  });
  try {
    const page: Page = await browser.newPage();
    let model: Uint8Array = new Uint8Array();
    // Nothing leaves the machine: every request is answered from memory or node_modules.
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      if (url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: PAGE });
      if (url.pathname === '/model.glb') {
        return route.fulfill({ contentType: 'model/gltf-binary', body: Buffer.from(model) });
      }
      if (url.pathname.startsWith('/three/') && !url.pathname.includes('..')) {
        const body = await readFile(THREE_DIR + url.pathname.slice('/three/'.length)).catch(() => null);
        if (body) return route.fulfill({ contentType: 'text/javascript', body });
      }
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await page.goto(ORIGIN + '/');
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    return {
      async render(glb, camera, width, height) {
        model = glb;
        const dataUrl = await page.evaluate(
          (args) => (window as unknown as { renderGlb(a: typeof args): Promise<string> }).renderGlb(args),
          { camera, width, height },
        );
        const png = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
        const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        if (info.width !== width || info.height !== height) {
          throw new Error(`reference render is ${info.width}×${info.height}, expected ${width}×${height}`);
        }
        return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      },
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
