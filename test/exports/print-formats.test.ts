import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import { EXPORT_UNITS, type ExportUnit } from '../../src/writers/export-formats.ts';
import { exportModel } from '../../src/writers/export-model.ts';
import { convertedSample, zipEntries, type PipelineRead } from './support.ts';

/** A 10 × 12 × 4 mm box standing 12 mm tall along glTF's +Y (metres), its lowest corner at the origin. */
async function twelveMillimetrePart(): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const [x, y, z] = [0.01, 0.012, 0.004];
  const corners = [];
  for (const cx of [0, x]) for (const cy of [0, y]) for (const cz of [0, z]) corners.push(cx, cy, cz);
  // Corner index = 4·(x side) + 2·(y side) + (z side); two triangles per face, wound outward.
  const faces = [
    [0, 1, 3, 2],
    [4, 6, 7, 5],
    [0, 4, 5, 1],
    [2, 3, 7, 6],
    [0, 2, 6, 4],
    [1, 5, 7, 3],
  ];
  const indices = faces.flatMap(([a, b, c, d]) => [a, b, c, a, c, d]);
  const primitive = document
    .createPrimitive()
    .setAttribute(
      'POSITION',
      document.createAccessor().setType('VEC3').setArray(new Float32Array(corners)).setBuffer(buffer),
    )
    .setIndices(
      document.createAccessor().setType('SCALAR').setArray(new Uint32Array(indices)).setBuffer(buffer),
    );
  document
    .createScene()
    .addChild(document.createNode('Screw').setMesh(document.createMesh('Screw').addPrimitive(primitive)));
  return new NodeIO().writeBinary(document);
}

/** Extent along x, y and z of a binary STL's vertices, and whether every stored normal points away from the centre. */
function stlExtent(stl: Uint8Array): { size: number[]; min: number[]; outward: boolean } {
  const view = new DataView(stl.buffer, stl.byteOffset, stl.byteLength);
  const count = view.getUint32(80, true);
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const triangles: { normal: number[]; corners: number[][] }[] = [];
  for (let t = 0; t < count; t++) {
    const at = 84 + t * 50;
    const read = (offset: number) => [0, 1, 2].map((axis) => view.getFloat32(at + offset + axis * 4, true));
    const corners = [read(12), read(24), read(36)];
    for (const corner of corners)
      corner.forEach((value, axis) => {
        min[axis] = Math.min(min[axis], value);
        max[axis] = Math.max(max[axis], value);
      });
    triangles.push({ normal: read(0), corners });
  }
  const centre = min.map((value, axis) => (value + max[axis]) / 2);
  const outward = triangles.every(({ normal, corners }) => {
    const mid = [0, 1, 2].map((axis) => (corners[0][axis] + corners[1][axis] + corners[2][axis]) / 3);
    return normal.reduce((sum, n, axis) => sum + n * (mid[axis] - centre[axis]), 0) > 0;
  });
  return { size: max.map((value, axis) => value - min[axis]), min, outward };
}

/** Vertex extent of a 3MF's model part, with the model's `unit`. */
async function threeMfExtent(bytes: Uint8Array): Promise<{ unit: string; size: number[] }> {
  const model = (await zipEntries(bytes))
    .find((entry) => entry.name === '3D/3dmodel.model')!
    .data.toString('utf8');
  const unit = /<model unit="([a-z]+)"/.exec(model)![1];
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const match of model.matchAll(/<vertex x="([^"]+)" y="([^"]+)" z="([^"]+)"\/>/g)) {
    [match[1], match[2], match[3]].map(Number).forEach((value, axis) => {
      min[axis] = Math.min(min[axis], value);
      max[axis] = Math.max(max[axis], value);
    });
  }
  return { unit, size: max.map((value, axis) => value - min[axis]) };
}

function assertSize(actual: number[], expected: number[], what: string): void {
  expected.forEach((value, axis) =>
    assert.ok(
      Math.abs(actual[axis] - value) < 1e-4 * Math.max(1, value),
      `${what}: ${actual.join(' × ')} ≈ ${expected.join(' × ')}`,
    ),
  );
}

void describe('STL and 3MF: millimetres and +Z up by default, in the unit asked for', () => {
  let glb: Uint8Array;
  before(async () => {
    glb = await twelveMillimetrePart();
  });
  const run = (format: 'stl' | '3mf', unit: ExportUnit) =>
    exportModel(glb, { format, bound: [], title: 'Screw', unit });

  void it('an STL of a 12 mm part is 12 units tall along +Z, standing on z = 0, normals outward', async () => {
    const { size, min, outward } = stlExtent(await run('stl', 'millimeter'));
    // glTF's x stays x; its depth (z, 4 mm) becomes −y; its height (y, 12 mm) becomes z.
    assertSize(size, [10, 4, 12], 'STL in millimetres');
    assert.ok(Math.abs(min[2]) < 1e-6, `the part stands on z = 0 (lowest z ${min[2]})`);
    assert.ok(outward, 'every face normal points out of the box');
  });

  void it('the 3MF of the same part is 12 millimetres tall along +Z', async () => {
    const { unit, size } = await threeMfExtent(await run('3mf', 'millimeter'));
    assert.equal(unit, 'millimeter');
    assertSize(size, [10, 4, 12], '3MF in millimetres');
  });

  void it('every unit scales the part: inch, micron, centimetre, foot, metre', async () => {
    const perMetre: Record<ExportUnit, number> = {
      millimeter: 1000,
      micron: 1e6,
      centimeter: 100,
      inch: 1 / 0.0254,
      foot: 1 / 0.3048,
      meter: 1,
    };
    for (const unit of EXPORT_UNITS) {
      const expected = [0.01, 0.004, 0.012].map((metres) => metres * perMetre[unit]);
      assertSize(stlExtent(await run('stl', unit)).size, expected, `STL in ${unit}`);
      const threeMf = await threeMfExtent(await run('3mf', unit));
      assert.equal(threeMf.unit, unit);
      assertSize(threeMf.size, expected, `3MF in ${unit}`);
    }
  });
});

void describe('3MF of the milk truck carries its texture', () => {
  let truck: PipelineRead & { glb: Uint8Array };
  before(async () => {
    truck = await convertedSample('glb/CesiumMilkTruck.glb');
  });

  void it('m:texture2d and a texture2dgroup of UVs in the model, the PNG as a package part with its relationship', async () => {
    const bytes = await exportModel(truck.glb, {
      format: '3mf',
      bound: [],
      title: 'Truck',
      unit: 'millimeter',
    });
    const entries = new Map((await zipEntries(bytes)).map((entry) => [entry.name, entry.data]));
    const model = entries.get('3D/3dmodel.model')!.toString('utf8');
    assert.match(model, /xmlns:m="http:\/\/schemas\.microsoft\.com\/3dmanufacturing\/material\/2015\/02"/);

    const textures = [...model.matchAll(/<m:texture2d id="(\d+)" path="([^"]+)" contenttype="([^"]+)"/g)];
    assert.equal(textures.length, 1, 'the truck has one image');
    const [, textureId, part, contentType] = textures[0];
    assert.equal(contentType, 'image/png');
    const image = truck.document.getRoot().listTextures()[0].getImage()!;
    assert.ok(entries.get(part.slice(1))?.equals(image), `${part} holds the truck's PNG`);
    assert.match(
      entries.get('[Content_Types].xml')!.toString('utf8'),
      /Extension="png" ContentType="image\/png"/,
    );
    assert.match(
      entries.get('3D/_rels/3dmodel.model.rels')!.toString('utf8'),
      new RegExp(
        `Target="${part}" Id="[^"]+" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dtexture"`,
      ),
    );

    const group = new RegExp(
      `<m:texture2dgroup id="(\\d+)" texid="${textureId}">([\\s\\S]*?)</m:texture2dgroup>`,
    ).exec(model);
    assert.ok(group, 'a texture2dgroup refers to the texture');
    const coords = [...group[2].matchAll(/<m:tex2coord u="([^"]+)" v="([^"]+)"\/>/g)];
    // One coordinate per vertex of every textured primitive.
    let texturedVertices = 0;
    let texturedTriangles = 0;
    for (const mesh of truck.document.getRoot().listMeshes())
      for (const primitive of mesh.listPrimitives()) {
        if (!primitive.getMaterial()?.getBaseColorTexture()) continue;
        texturedVertices += primitive.getAttribute('POSITION')!.getCount();
        texturedTriangles += primitive.getIndices()!.getCount() / 3;
      }
    assert.ok(texturedVertices > 0);
    const placements = truck.document
      .getRoot()
      .listNodes()
      .filter((node) =>
        node
          .getMesh()
          ?.listPrimitives()
          .some((p) => p.getMaterial()?.getBaseColorTexture()),
      );
    // The wheels are one mesh placed four times: every placement is its own 3MF object with its own coordinates.
    assert.ok(
      coords.length >= texturedVertices,
      `${coords.length} coordinates for ${texturedVertices}+ vertices`,
    );
    assert.ok(coords.every(([, u, v]) => Number.isFinite(Number(u)) && Number.isFinite(Number(v))));

    const textured = [
      ...model.matchAll(
        new RegExp(`<triangle [^>]*pid="${group[1]}" p1="(\\d+)" p2="(\\d+)" p3="(\\d+)"/>`, 'g'),
      ),
    ];
    assert.ok(textured.length >= texturedTriangles, `${textured.length} textured triangles`);
    assert.ok(placements.length > 1);
    assert.ok(textured.every((match) => match.slice(1).every((index) => Number(index) < coords.length)));
  });
});
