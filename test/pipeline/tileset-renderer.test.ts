// The tileset as a viewer opens it: 3d-tiles-renderer (with three's GLTFLoader and meshopt decoder, as the viewer
// will use them) fetches the tileset over HTTP, resolves its relative tile URIs, decodes every tile, and with no
// error allowed refines down to the leaves, which then draw every source triangle with each vertex's part id.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { MeshoptSimplifier } from 'meshoptimizer';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { makeTiles } from '../../src/pipeline/tiles/make-tiles.ts';
import { collectTriangles } from '../../src/pipeline/tiles/triangle-soup.ts';
import { emptyDocument, quietLogger } from './documents.ts';
import { torusPrimitive } from './torus.ts';

void test('3d-tiles-renderer opens the tileset and refines to leaves that draw every triangle', async () => {
  // Two tori of 180,000 triangles, side by side: a root, inner tiles and leaves.
  const document = emptyDocument();
  for (let part = 0; part < 2; part++) {
    const primitive = torusPrimitive(document, 300, 300);
    document
      .getRoot()
      .listScenes()[0]
      .addChild(
        document
          .createNode(`Ring ${part}`)
          .setTranslation([part * 3, 0, 0])
          .setMesh(document.createMesh().addPrimitive(primitive)),
      );
  }
  extractParts(document, { modelId: 'rings' }, { logger: quietLogger });
  const soup = collectTriangles(document, { logger: quietLogger });
  const files = new Map<string, Uint8Array>();
  await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      maxLeafTriangles: 32_768,
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger },
  );

  const server = http.createServer((request, response) => {
    // In a folder, as the API serves a tileset.
    const bytes = files.get(decodeURIComponent(request.url!).replace(/^\/model\//, ''));
    response.statusCode = bytes ? 200 : 404;
    response.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // What a browser gives the renderer: its page's address and animation frames.
  Object.assign(globalThis, {
    window: { location: { href: base } },
    self: globalThis,
    requestAnimationFrame: (callback: (time: number) => void) =>
      setTimeout(() => callback(performance.now()), 4),
    cancelAnimationFrame: (handle: NodeJS.Timeout) => clearTimeout(handle),
  });
  try {
    const THREE = await import('three');
    const { TilesRenderer } = await import('3d-tiles-renderer');
    const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');
    const { MeshoptDecoder } = await import('three/examples/jsm/libs/meshopt_decoder.module.js');
    const tiles = new TilesRenderer(`${base}model/tileset.json`);
    const loader = new GLTFLoader(tiles.manager).setMeshoptDecoder(MeshoptDecoder);
    tiles.manager.addHandler(/\.glb$/, loader);
    const errors: string[] = [];
    tiles.addEventListener('load-error', (event: { error?: Error }) => errors.push(String(event.error)));
    // Any error is too much: every tile refines to the leaves.
    tiles.errorTarget = 0;
    const camera = new THREE.PerspectiveCamera(60, 1, 0.01, 1000);
    camera.position.set(1.5, 10, 2);
    camera.lookAt(1.5, 0, 0);
    camera.updateMatrixWorld();
    tiles.setCamera(camera);
    tiles.setResolution(camera, 1000, 1000);

    const visible = () => {
      let triangles = 0;
      let withFeatures = 0;
      let meshes = 0;
      tiles.group.traverse((object) => {
        const mesh = object as InstanceType<typeof THREE.Mesh>;
        if (!mesh.isMesh || !mesh.visible) return;
        meshes++;
        triangles += (mesh.geometry.index?.count ?? 0) / 3;
        if (mesh.geometry.getAttribute('_feature_id_0')) withFeatures++;
      });
      return { triangles, meshes, withFeatures };
    };
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && visible().triangles < soup.indices.length / 3) {
      tiles.update();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(errors, []);
    const drawn = visible();
    assert.equal(drawn.triangles, soup.indices.length / 3, 'the leaves draw every triangle');
    assert.equal(drawn.withFeatures, drawn.meshes, "every drawn mesh carries its vertices' part ids");
    tiles.dispose();
  } finally {
    server.close();
  }
});
