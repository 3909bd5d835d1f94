import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';
import { exportModel, type ExportModelOptions } from '../../src/writers/export-model.ts';
import { USDZ_ROOT_LAYER } from '../../src/writers/write-usdz.ts';
import { IMPORT_ASSIMP_DEFAULTS } from '../../src/pipeline/import/assimp/import-assimp.ts';
import {
  boundMaterial,
  convertedSample,
  loadObjWithThree,
  loadWithThree,
  reimport,
  SAMPLES_DIR,
  zipEntries,
  type PipelineRead,
} from './support.ts';

const AVOCADO = 'gltf/Avocado/Avocado.gltf';

/** What assimpjs answers a conversion with. */
interface AssimpResult {
  IsSuccess(): boolean;
  GetErrorCode(): number;
  GetFile(index: number): { GetContent(): Uint8Array };
  delete(): void;
}

/** The part of assimp's JSON scene dump read here. */
interface AssimpJson {
  materials: { properties: { key: string; semantic: number; value: unknown }[] }[];
}
const avocadoImage = (name: string) => fs.readFileSync(path.join(SAMPLES_DIR, 'gltf/Avocado', name));

/** Mean of each channel of an image, 0–255. */
async function channelMeans(image: Uint8Array): Promise<number[]> {
  const { channels } = await sharp(image).stats();
  return channels.map((channel) => channel.mean);
}

void describe('exports keep appearance: the avocado (base colour, normal and metallic-roughness textures)', () => {
  let avocado: PipelineRead & { glb: Uint8Array };
  const run = (format: ExportModelOptions['format'], bound: ExportModelOptions['bound'] = []) =>
    exportModel(avocado.glb, { format, bound, title: 'Avocado', unit: 'millimeter' });
  before(async () => {
    avocado = await convertedSample(AVOCADO);
    const material = avocado.document.getRoot().listMaterials()[0];
    // The premise: glTF's default factors (1, 1) that only the texture tempers.
    assert.equal(material.getMetallicFactor(), 1);
    assert.equal(material.getRoughnessFactor(), 1);
    assert.ok(
      material.getNormalTexture() && material.getMetallicRoughnessTexture() && material.getBaseColorTexture(),
    );
  });

  void it('USDZ: three.js USDZLoader finds the base colour, normal, roughness and metalness maps', async () => {
    const usdz = await run('usdz');
    const entries = await zipEntries(usdz);
    const layer = entries.find((entry) => entry.name === USDZ_ROOT_LAYER)!.data.toString('utf8');
    // Every image the layer names travels in the package, byte for byte the source's.
    const named = [...layer.matchAll(/asset inputs:file = @([^@]+)@/g)].map((match) => match[1]);
    assert.equal(new Set(named).size, 3, `three images: ${named.join(', ')}`);
    const packaged = new Map(entries.map((entry) => [entry.name, entry.data]));
    const sources = ['Avocado_baseColor.png', 'Avocado_normal.png', 'Avocado_roughnessMetallic.png'].map(
      avocadoImage,
    );
    for (const file of named) {
      assert.ok(
        sources.some((source) => source.equals(packaged.get(file)!)),
        `${file} is one of the source images`,
      );
    }
    assert.match(layer, /normal3f inputs:normal\.connect = <[^>]+\/Normal\.outputs:rgb>/);
    assert.match(layer, /float inputs:roughness\.connect = <[^>]+\/MetallicRoughness\.outputs:g>/);
    assert.match(layer, /float inputs:metallic\.connect = <[^>]+\/MetallicRoughness\.outputs:b>/);
    // The plain values (what a reader without the maps shows) are the texture's means, not metallic 1 / roughness 1.
    assert.match(layer, /float inputs:metallic = 0\n/);
    assert.match(layer, /float inputs:roughness = 0\.85\d*\n/);

    const loaded = await loadWithThree(usdz);
    assert.equal(loaded.triangles, avocado.triangles);
    const { maps, material } = loaded.meshes[0];
    assert.deepEqual(Object.keys(maps).sort(), ['map', 'metalnessMap', 'normalMap', 'roughnessMap']);
    assert.notEqual(maps.map, maps.normalMap);
    assert.notEqual(maps.map, maps.roughnessMap);
    assert.equal(maps.roughnessMap, maps.metalnessMap, 'one packed image: roughness in G, metalness in B');
    assert.equal(material.normalMap!.colorSpace, '', 'the normal map is read as data, not as sRGB');
  });

  void it('OBJ: three.js OBJLoader + MTLLoader find map_Kd and norm; map_Pr and map_Pm hold the split channels', async () => {
    const obj = await loadObjWithThree(await run('obj'));
    const [statements] = Object.values(obj.statements);
    // Blender reads the normal map from map_Bump alone; the same file as norm.
    assert.equal(statements.map_bump, statements.norm);
    for (const key of ['map_kd', 'norm', 'map_bump', 'map_pr', 'map_pm']) {
      const file = statements[key] as string;
      assert.ok(obj.files.has(file), `${key} ${file} is in the zip`);
    }
    assert.ok(obj.files.get(statements.map_kd as string)!.equals(avocadoImage('Avocado_baseColor.png')));
    assert.ok(obj.files.get(statements.norm as string)!.equals(avocadoImage('Avocado_normal.png')));
    // The packed image is not shipped beside its halves.
    assert.equal(obj.files.size, 2 + 4, [...obj.files.keys()].join(', '));

    // The halves are grey images of glTF's G (roughness) and B (metalness) channels.
    const [, green, blue] = await channelMeans(avocadoImage('Avocado_roughnessMetallic.png'));
    const roughness = await channelMeans(obj.files.get(statements.map_pr as string)!);
    const metallic = await channelMeans(obj.files.get(statements.map_pm as string)!);
    assert.equal(roughness.length, 1);
    assert.equal(metallic.length, 1);
    assert.ok(Math.abs(roughness[0] - green) < 0.5, `roughness mean ${roughness[0]} ≈ G ${green}`);
    assert.ok(Math.abs(metallic[0] - blue) < 0.5, `metalness mean ${metallic[0]} ≈ B ${blue}`);
    assert.ok(green > 200 && blue < 1, 'the avocado is rough and not metal');
    // Pr/Pm: the means, for readers that take numbers only.
    assert.ok(Math.abs(Number(statements.pr) - green / 255) < 0.01, `Pr ${String(statements.pr)}`);
    assert.ok(Number(statements.pm) < 0.01, `Pm ${String(statements.pm)}`);

    const { maps } = obj.meshes[0];
    assert.equal(maps.map, statements.map_kd);
    assert.equal(maps.normalMap, statements.norm);
  });

  void it('OBJ: assimp reads the four maps with their meaning (diffuse, normals, roughness, metalness)', async () => {
    const zip = new Map((await zipEntries(await run('obj'))).map((entry) => [entry.name, entry.data]));
    const assimp = await IMPORT_ASSIMP_DEFAULTS.loadAssimp();
    const list = new assimp.FileList();
    for (const [name, data] of zip) if (/\.(obj|mtl)$/.test(name)) list.AddFile(name, data);
    // assimp's JSON dump lists each material property with its texture type ("semantic").
    const result = (assimp.ConvertFileList as (files: typeof list, format: string) => AssimpResult)(
      list,
      'assjson',
    );
    assert.ok(result.IsSuccess(), `assimp error ${result.GetErrorCode()}`);
    const scene = JSON.parse(new TextDecoder().decode(result.GetFile(0).GetContent())) as AssimpJson;
    result.delete();
    list.delete();
    const files = new Map<number, string>();
    const numbers = new Map<string, number>();
    for (const material of scene.materials)
      for (const property of material.properties) {
        if (property.key === '$tex.file') files.set(property.semantic, property.value as string);
        if (typeof property.value === 'number') numbers.set(property.key, property.value);
      }
    // aiTextureType: 1 diffuse, 6 normals, 15 metalness, 16 diffuse roughness.
    for (const semantic of [1, 6, 15, 16])
      assert.ok(zip.has(files.get(semantic) ?? ''), `texture type ${semantic}`);
    assert.ok(numbers.get('$mat.metallicFactor')! < 0.01, 'Pm: not metal');
    assert.ok(Math.abs(numbers.get('$mat.roughnessFactor')! - 0.858) < 0.01, 'Pr: the mean roughness');
  });

  void it('OBJ round trip: map_Pr and map_Pm come back as one metallic-roughness texture', async () => {
    const back = await reimport(await run('obj'), 'obj');
    const material = back.document.getRoot().listMaterials()[0];
    assert.ok(material.getBaseColorTexture() && material.getNormalTexture(), 'base colour and normal maps');
    const packed = material.getMetallicRoughnessTexture();
    assert.ok(packed, 'the metallic-roughness texture');
    const [, green, blue] = await channelMeans(avocadoImage('Avocado_roughnessMetallic.png'));
    const [, roughness, metallic] = await channelMeans(packed.getImage()!);
    assert.ok(Math.abs(roughness - green) < 0.5, `G mean ${roughness} ≈ the source's ${green}`);
    assert.ok(Math.abs(metallic - blue) < 0.5, `B mean ${metallic} ≈ the source's ${blue}`);
    assert.equal(material.getRoughnessFactor(), 1);
    assert.equal(material.getMetallicFactor(), 1);
  });

  void it('OBJ: a bound colour (230, 20, 200) comes back as #e614c8 through MTLLoader (Kd in sRGB)', async () => {
    const bound: ExportModelOptions['bound'] = [
      [avocado.parts[0].group_id, boundMaterial(9, [230, 20, 200])],
    ];
    const obj = await loadObjWithThree(await run('obj', bound));
    assert.equal(obj.meshes.length, 1);
    assert.equal(obj.meshes[0].material.color.getHexString(), 'e614c8');
    assert.equal(obj.meshes[0].textured, false, 'the bound material replaces the textured one');
  });
});

/** A one-triangle GLB whose material has a WebP base colour and a KTX2 metallic-roughness texture (bytes unreadable). */
async function webpAndKtx2Glb(): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const accessor = (type: 'VEC2' | 'VEC3', values: number[]) =>
    document.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  const webp = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#30a050' } })
    .webp({ lossless: true })
    .toBuffer();
  const material = document
    .createMaterial('Painted')
    .setBaseColorTexture(document.createTexture('colour').setMimeType('image/webp').setImage(webp))
    .setMetallicRoughnessTexture(
      document
        .createTexture('packed')
        .setMimeType('image/ktx2')
        .setImage(new Uint8Array([0xab, 0x4b, 0x54, 0x58])),
    );
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', [0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setAttribute('TEXCOORD_0', accessor('VEC2', [0, 0, 1, 0, 0, 1]))
    .setMaterial(material);
  document
    .createScene()
    .addChild(document.createNode('Tile').setMesh(document.createMesh().addPrimitive(primitive)));
  return new NodeIO().writeBinary(document);
}

void describe('exports keep appearance: images no format takes', () => {
  void it('a WebP base colour travels as PNG; a KTX2 metallic-roughness texture is left out with its factors replaced', async () => {
    const glb = await webpAndKtx2Glb();
    const options = { bound: [], title: 'Tile', unit: 'millimeter' } as const;
    const obj = await loadObjWithThree(await exportModel(glb, { ...options, format: 'obj' }));
    const [statements] = Object.values(obj.statements);
    const colour = obj.files.get(statements.map_kd as string)!;
    assert.equal((await sharp(colour).metadata()).format, 'png');
    assert.deepEqual((await channelMeans(colour)).map(Math.round), [0x30, 0xa0, 0x50]);
    assert.equal(statements.map_pr, undefined);
    assert.equal(statements.map_pm, undefined);
    // Not glTF's bare factors (1, 1): no metal, half the roughness factor.
    assert.equal(Number(statements.pm), 0);
    assert.equal(Number(statements.pr), 0.5);

    const layer = (await zipEntries(await exportModel(glb, { ...options, format: 'usdz' })))[0].data.toString(
      'utf8',
    );
    assert.match(layer, /float inputs:metallic = 0\n/);
    assert.match(layer, /float inputs:roughness = 0\.5\n/);
    assert.doesNotMatch(layer, /MetallicRoughness/);
    assert.match(layer, /asset inputs:file = @textures\/\d+\.png@/);
  });
});
