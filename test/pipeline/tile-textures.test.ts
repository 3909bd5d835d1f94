// Tiles of textured and vertex-coloured models: every tile carries its UVs and base-colour texture (inner tiles a
// smaller one than the leaves), or its vertices' colours, and the thumbnail drawn from the tree shows them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import sharp from 'sharp';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { TILESET_FILE, makeTiles } from '../../src/pipeline/tiles/make-tiles.ts';
import type { TileJson, TilesetJson } from '../../src/pipeline/tiles/tileset-json.ts';
import { collectTriangles } from '../../src/pipeline/tiles/triangle-soup.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { tileCutGlb } from '../../src/render/scene/tile-cut-glb.ts';
import { tilePartsDocument } from '../../src/render/scene/tile-parts-document.ts';
import { decodeRgba } from '../render/silhouette.ts';
import { emptyDocument, quietLogger, readGlb, validationErrors } from './documents.ts';

/** Quads a side of the grid: 2 × 160² = 51,200 triangles. */
const SIDE = 160;
/** Side of the checker texture, in pixels; its squares are 1/8 of it. */
const TEXTURE_SIDE = 2048;

/** The colour a vertex of the coloured grid gets from its place: red across X, green across Z. */
function colourAt(x: number, z: number): [number, number, number] {
  return [x / SIDE, z / SIDE, 0.25];
}

/**
 * A wavy grid of `SIDE`² quads over X and Z (one metre a quad), its UVs running 0–1 across it, with the given
 * texture or with a colour per vertex.
 */
function grid(surface: { texture: Uint8Array } | { colours: true }): Document {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const positions: number[] = [];
  const uvs: number[] = [];
  const colours: number[] = [];
  for (let z = 0; z <= SIDE; z++) {
    for (let x = 0; x <= SIDE; x++) {
      positions.push(x, Math.sin(x / 9) * Math.cos(z / 7) * 3, z);
      uvs.push(x / SIDE, z / SIDE);
      colours.push(...colourAt(x, z));
    }
  }
  const indices: number[] = [];
  for (let z = 0; z < SIDE; z++) {
    for (let x = 0; x < SIDE; x++) {
      const a = z * (SIDE + 1) + x;
      indices.push(a, a + SIDE + 1, a + 1, a + 1, a + SIDE + 1, a + SIDE + 2);
    }
  }
  const accessor = (type: 'VEC2' | 'VEC3', values: number[]) =>
    document.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setIndices(document.createAccessor().setArray(new Uint32Array(indices)).setBuffer(buffer));
  const material = document.createMaterial('Surface');
  if ('texture' in surface) {
    primitive.setAttribute('TEXCOORD_0', accessor('VEC2', uvs));
    const texture = document.createTexture('Checker').setImage(surface.texture).setMimeType('image/png');
    material.setBaseColorTexture(texture);
  } else primitive.setAttribute('COLOR_0', accessor('VEC3', colours));
  document
    .getRoot()
    .listScenes()[0]
    .addChild(
      document
        .createNode('Grid')
        .setMesh(document.createMesh('Grid').addPrimitive(primitive.setMaterial(material))),
    );
  return document;
}

/** A red and blue checker of 8 × 8 squares, as PNG. */
async function checker(): Promise<Uint8Array> {
  const pixels = Buffer.alloc(TEXTURE_SIDE * TEXTURE_SIDE * 3);
  const square = TEXTURE_SIDE / 8;
  for (let y = 0; y < TEXTURE_SIDE; y++) {
    for (let x = 0; x < TEXTURE_SIDE; x++) {
      const red = (Math.floor(x / square) + Math.floor(y / square)) % 2 === 0;
      pixels.set(red ? [230, 20, 20] : [20, 20, 230], (y * TEXTURE_SIDE + x) * 3);
    }
  }
  return new Uint8Array(
    await sharp(pixels, { raw: { width: TEXTURE_SIDE, height: TEXTURE_SIDE, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

/** Tiles a document into small leaves; the files by path, the summary, and every tile with its depth. */
async function tile(document: Document) {
  extractParts(document, { modelId: 'grid' }, { logger: quietLogger });
  const soup = collectTriangles(document, { logger: quietLogger });
  const files = new Map<string, Uint8Array>();
  const summary = await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      maxLeafTriangles: 2_048,
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger },
  );
  const tileset = JSON.parse(new TextDecoder().decode(files.get(TILESET_FILE))) as TilesetJson;
  const list = (tile: TileJson): TileJson[] => [tile, ...(tile.children ?? []).flatMap(list)];
  return { soup, files, summary, tiles: list(tileset.root) };
}

/** Shares of opaque pixels that are clearly red and clearly blue. */
async function checkerShares(png: Uint8Array): Promise<{ red: number; blue: number }> {
  const { data } = await decodeRgba(png);
  let [opaque, red, blue] = [0, 0, 0];
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] < 128) continue;
    opaque++;
    if (data[i] - data[i + 2] > 60 && data[i] - data[i + 1] > 60) red++;
    if (data[i + 2] - data[i] > 60 && data[i + 2] - data[i + 1] > 60) blue++;
  }
  return { red: red / opaque, blue: blue / opaque };
}

void test('a textured model tiles with UVs and its texture in every tile, smaller in the inner tiles', async () => {
  const { files, summary, tiles } = await tile(grid({ texture: await checker() }));
  assert.ok(
    tiles.some((tile) => (tile.children ?? []).some((child) => child.children)),
    'the tree has inner tiles above inner tiles',
  );
  const sides = { leaf: new Set<number>(), inner: new Set<number>() };
  for (const tile of tiles) {
    const glb = files.get(tile.content.uri)!;
    assert.deepEqual(await validationErrors(glb), [], `${tile.content.uri} validates`);
    const content = await readGlb(glb);
    for (const primitive of content.getRoot().listMeshes()[0].listPrimitives()) {
      assert.ok(primitive.getAttribute('TEXCOORD_0'), `${tile.content.uri} has UVs`);
      const texture = primitive.getMaterial()?.getBaseColorTexture();
      assert.ok(texture?.getImage(), `${tile.content.uri} has its base-colour texture`);
      const { width, height } = await sharp(texture!.getImage()!).metadata();
      sides[tile.children ? 'inner' : 'leaf'].add(Math.max(width!, height!));
    }
  }
  assert.deepEqual([...sides.leaf], [1024], "the leaves carry the texture at LOD 1's size");
  assert.ok(
    [...sides.inner].every((side) => side < 1024),
    `inner tiles' textures ${[...sides.inner].join(', ')} px are smaller`,
  );
  // One image a size, however many tiles carry it: the tileset stays a sane size.
  console.log(`textured tileset: ${summary.tileCount} tiles, ${(summary.bytes / 1e6).toFixed(2)} MB`);

  // The thumbnail drawn from a cut through the tiles, and from the root tile alone, both show the checker.
  const io = await createNodeIO();
  const cut = await tileCutGlb(summary.tileset.root, async (uri) => files.get(uri));
  const cutPng = await renderThumbnail(cut.glb);
  const root = await readGlb(files.get(summary.tileset.root.content.uri)!);
  const tilesPng = await renderThumbnail(await io.writeBinary(tilePartsDocument([root])));
  for (const [name, png] of [
    ['cut', cutPng],
    ['root tile', tilesPng],
  ] as const) {
    const { red, blue } = await checkerShares(png);
    assert.ok(
      red > 0.25 && blue > 0.25,
      `the ${name} shows the checker: ${red.toFixed(2)} red, ${blue.toFixed(2)} blue`,
    );
  }
});

void test('a vertex-coloured model keeps its colours in every tile', async () => {
  const { files, tiles } = await tile(grid({ colours: true }));
  for (const tile of tiles) {
    const glb = files.get(tile.content.uri)!;
    assert.deepEqual(await validationErrors(glb), [], `${tile.content.uri} validates`);
    const content = await readGlb(glb);
    const node = content
      .getRoot()
      .listNodes()
      .find((candidate) => candidate.getMesh())!;
    const matrix = node.getWorldMatrix();
    for (const primitive of node.getMesh()!.listPrimitives()) {
      const colour = primitive.getAttribute('COLOR_0');
      assert.ok(colour, `${tile.content.uri} has vertex colours`);
      const position = primitive.getAttribute('POSITION')!;
      // A few vertices spread through the tile: their colour is the one their place gave them.
      for (let i = 0; i < position.getCount(); i += Math.max(1, Math.floor(position.getCount() / 7))) {
        const [x, y, z] = position.getElement(i, [0, 0, 0]);
        const worldX = matrix[0] * x + matrix[4] * y + matrix[8] * z + matrix[12];
        const worldZ = matrix[2] * x + matrix[6] * y + matrix[10] * z + matrix[14];
        const expected = colourAt(Math.round(worldX), Math.round(worldZ));
        const drawn = colour.getElement(i, [0, 0, 0, 0]);
        for (let channel = 0; channel < 3; channel++) {
          assert.ok(
            Math.abs(drawn[channel] - expected[channel]) < 0.01,
            `${tile.content.uri} vertex ${i}: ${drawn.join(', ')} against ${expected.join(', ')}`,
          );
        }
      }
    }
  }
});
