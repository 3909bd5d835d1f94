// Exports of a model's configurations: one GLB with every configuration as a KHR_materials_variants variant, and
// any format baking one configuration; each cached on its own and made again when what it is made from changes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { KHRMaterialsVariants, type MappingList, type Variant } from '@gltf-transform/extensions';
import { srgbToLinear } from '../../src/writers/bound-material.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, notRendered, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { readGlb, validationErrors } from '../pipeline/documents.ts';
import { scopedToken } from '../review/review-fixtures.ts';
import { zipEntries } from './support.ts';
import { texturedPartGroup, texturedPartsGlb, type TexturedPart } from './textured-parts.ts';

type Rgb = [number, number, number];
type Part = TexturedPart;

const RED: Rgb = [200, 20, 20];
const GREEN: Rgb = [20, 180, 40];
const BLUE: Rgb = [10, 30, 250];
const GREY: Rgb = [120, 120, 120];

/** The first primitive of the named part. */
function primitiveOf(document: Document, part: Part) {
  const node = document
    .getRoot()
    .listNodes()
    .find((candidate) => candidate.getName() === part);
  const mesh = node?.getMesh();
  assert.ok(mesh, `the export has the part ${part}`);
  return mesh.listPrimitives()[0];
}

/** Whether a glTF base colour factor is the given sRGB colour. */
function isColour(factor: number[] | undefined, rgb: Rgb): boolean {
  return (
    factor !== undefined && rgb.every((channel, i) => Math.abs(factor[i] - srgbToLinear(channel)) < 1e-4)
  );
}

function assertColour(factor: number[] | undefined, rgb: Rgb, what: string): void {
  assert.ok(isColour(factor, rgb), `${what}: ${String(factor)} is not ${rgb.join(',')}`);
}

/** The part's default material is the model's own textured one. */
function assertOwnMaterial(document: Document, part: Part): void {
  const material = primitiveOf(document, part).getMaterial();
  assert.ok(material?.getBaseColorTexture(), `${part} keeps its own textured material`);
}

/** Each mapping of the part's first primitive: the names of its variants and its material's colour. */
function mappingsOf(document: Document, part: Part): { variants: string[]; colour: number[] }[] {
  const list = primitiveOf(document, part).getExtension<MappingList>(KHRMaterialsVariants.EXTENSION_NAME);
  return (list?.listMappings() ?? []).map((mapping) => ({
    variants: mapping.listVariants().map((variant: Variant) => variant.getName()),
    colour: mapping.getMaterial()!.getBaseColorFactor(),
  }));
}

function variantNames(document: Document): string[] {
  const extension = document
    .getRoot()
    .listExtensionsUsed()
    .find((used) => used.extensionName === KHRMaterialsVariants.EXTENSION_NAME) as
    KHRMaterialsVariants | undefined;
  return (extension?.listVariants() ?? []).map((variant) => variant.getName());
}

for (const dialect of testDialects()) {
  void describe(`configuration exports (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    let modelId: string;
    const prefix = `configured-${dialect}-${Date.now()}`;
    const group = (part: Part) => texturedPartGroup(prefix, part);
    const ids: Record<'red' | 'green' | 'blue' | 'grey', number> = { red: 0, green: 0, blue: 0, grey: 0 };
    /** Configuration ids by name. */
    const configurations = new Map<string, string>();

    before(async () => {
      testApp = await createTestApp(dialect);
      testApp.startJobRunner(notRendered);
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      const created = await api.create('chair.glb', await texturedPartsGlb(prefix), { name: 'Chair' });
      modelId = created.id;
      // Configurations bind parts of the model, which are known once it is converted.
      await waitForStatus(testApp.app, modelId, ['completed']);
      for (const [name, rgb] of [
        ['red', RED],
        ['green', GREEN],
        ['blue', BLUE],
        ['grey', GREY],
      ] as const) {
        const [diffuse_r, diffuse_g, diffuse_b] = rgb;
        ids[name] = (await materials.create({ name, diffuse_r, diffuse_g, diffuse_b })).id;
      }
      // The model's present binding: the seat is grey, the back and legs keep their own textured material.
      await materials.bind(ids.grey, [group('Seat')]);
      for (const [name, part, material] of [
        ['Red seat', 'Seat', ids.red],
        ['Green back', 'Back', ids.green],
        ['Blue legs', 'Legs', ids.blue],
      ] as const) {
        const made = await api.call('POST', `/${modelId}/configurations`, { name });
        assert.equal(made.status, 201, made.text);
        configurations.set(name, made.json.data.id);
        await bindConfiguration(name, part, material);
      }
    });
    after(() => testApp.close());

    async function bindConfiguration(name: string, part: Part, material: number): Promise<void> {
      const bound = await api.call('PUT', `/${modelId}/configurations/${configurations.get(name)}/bindings`, {
        bindings: [{ group_id: group(part), material_id: material }],
      });
      assert.equal(bound.status, 200, bound.text);
    }

    const exportCall = (query: string, auth = testApp.auth) =>
      testApp.app.inject({ method: 'GET', url: `/api/models/${modelId}/export?${query}`, headers: auth });

    /** Asks until the export answers 200; the first answer must be a 202 when `expectNew`, a 200 otherwise. */
    async function exported(query: string, expectNew: boolean, auth = testApp.auth): Promise<Buffer> {
      const first = await exportCall(query, auth);
      assert.equal(first.statusCode, expectNew ? 202 : 200, `${query}: ${first.body}`);
      const deadline = Date.now() + 60_000;
      for (let answer = first; ; answer = await exportCall(query, auth)) {
        if (answer.statusCode === 200) return answer.rawPayload;
        assert.equal(answer.statusCode, 202, answer.body);
        if (Date.now() > deadline) assert.fail(`export ${query} never finished: ${answer.body}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    const configurationQuery = (name: string, format = 'glb') =>
      `format=${format}&configuration=${configurations.get(name)}`;

    void it('writes every configuration as a named variant over the present bindings, validator-clean', async () => {
      const glb = await exported('format=glb&materials=variants', true);
      assert.deepEqual(await validationErrors(glb), []);
      const document = await readGlb(glb);
      assert.deepEqual(variantNames(document), ['Red seat', 'Green back', 'Blue legs']);
      // The defaults are what materials=bound bakes: the seat's present binding, the others their own material.
      assertColour(primitiveOf(document, 'Seat').getMaterial()?.getBaseColorFactor(), GREY, 'default seat');
      assertOwnMaterial(document, 'Back');
      assertOwnMaterial(document, 'Legs');
      // Each part is mapped to its colour in the one variant that paints it, and to its default in the others, so
      // a viewer going from one variant straight to another puts it back.
      const defaultColour = (part: Part) => primitiveOf(document, part).getMaterial()!.getBaseColorFactor();
      for (const [part, variant, rgb] of [
        ['Seat', 'Red seat', RED],
        ['Back', 'Green back', GREEN],
        ['Legs', 'Blue legs', BLUE],
      ] as const) {
        const mappings = mappingsOf(document, part);
        assert.equal(mappings.length, 2, `${part} has two mappings`);
        assert.deepEqual(mappings[0].variants, [variant]);
        assertColour(mappings[0].colour, rgb, `${part} in ${variant}`);
        const others = variantNames(document).filter((name) => name !== variant);
        assert.deepEqual(mappings[1].variants, others, `${part} in the other variants`);
        assert.deepEqual(mappings[1].colour, defaultColour(part), `${part}'s default in the others`);
      }
      const json = await exportCall('format=glb&materials=variants', {
        ...testApp.auth,
        accept: 'application/json',
      });
      const state = JSON.parse(json.body).data;
      assert.equal(state.materials, 'variants');
      assert.equal(state.configuration_id, null);
      assert.equal(state.file_name, 'Chair.glb');
    });

    void it('bakes one configuration over the present bindings, in GLB and in the other formats', async () => {
      const red = await readGlb(await exported(configurationQuery('Red seat'), true));
      assertColour(primitiveOf(red, 'Seat').getMaterial()?.getBaseColorFactor(), RED, 'seat of Red seat');
      assertOwnMaterial(red, 'Back');
      assertOwnMaterial(red, 'Legs');
      assert.equal(variantNames(red).length, 0, 'a baked configuration has no variants');

      const green = await readGlb(await exported(configurationQuery('Green back'), true));
      assertColour(
        primitiveOf(green, 'Back').getMaterial()?.getBaseColorFactor(),
        GREEN,
        'back of Green back',
      );
      assertColour(primitiveOf(green, 'Seat').getMaterial()?.getBaseColorFactor(), GREY, 'an unbound part');
      assertOwnMaterial(green, 'Legs');

      // 3MF keeps each part's colour as a base material (sRGB hex): blue appears only with the configuration.
      const blueHex = `#${BLUE.map((channel) => channel.toString(16).padStart(2, '0').toUpperCase()).join('')}`;
      const modelXml = async (bytes: Uint8Array) =>
        (await zipEntries(bytes)).find((entry) => entry.name.endsWith('.model'))!.data.toString('utf8');
      const blue3mf = await modelXml(await exported(configurationQuery('Blue legs', '3mf'), true));
      assert.ok(blue3mf.includes(blueHex), `the 3MF names ${blueHex}`);
      const plain3mf = await modelXml(await exported('format=3mf', true));
      assert.ok(!plain3mf.includes(blueHex), 'the model without the configuration is not blue');

      const json = await exportCall(configurationQuery('Green back'), {
        ...testApp.auth,
        accept: 'application/json',
      });
      const state = JSON.parse(json.body).data;
      assert.equal(state.configuration_id, configurations.get('Green back'));
      assert.equal(state.file_name, 'Chair - Green back.glb');
    });

    void it('reuses each cached file, and makes it again when its configuration or a material changes', async () => {
      const before = await exported(configurationQuery('Red seat'), false);
      const variantsBefore = await exported('format=glb&materials=variants', false);
      const plain = await exported('format=glb', true);

      // Red seat now paints the legs too: its file and the variants change; the plain export and Green back do not.
      const seatAndLegs = await api.call(
        'POST',
        `/${modelId}/configurations/${configurations.get('Red seat')}/bindings`,
        { bindings: [{ group_id: group('Legs'), material_id: ids.red }] },
      );
      assert.equal(seatAndLegs.status, 200, seatAndLegs.text);
      const after = await readGlb(await exported(configurationQuery('Red seat'), true));
      assertColour(primitiveOf(after, 'Legs').getMaterial()?.getBaseColorFactor(), RED, 'legs of Red seat');
      assert.notDeepEqual(await exported(configurationQuery('Red seat'), false), before);
      const variants = await readGlb(await exported('format=glb&materials=variants', true));
      assert.deepEqual(
        mappingsOf(variants, 'Legs')
          .map((mapping) => mapping.variants)
          .sort(),
        [['Blue legs'], ['Green back'], ['Red seat']],
      );
      assert.notDeepEqual(await exported('format=glb&materials=variants', false), variantsBefore);
      assert.deepEqual(await exported('format=glb', false), plain, 'the plain export is kept');
      await exported(configurationQuery('Green back'), false);

      // An edited material bound only by a configuration remakes the exports that use it.
      const edited = await materials.call('PUT', `/materials/${ids.green}`, { diffuse_g: 250 });
      assert.equal(edited.status, 200, edited.text);
      const greener = await readGlb(await exported(configurationQuery('Green back'), true));
      assertColour(primitiveOf(greener, 'Back').getMaterial()?.getBaseColorFactor(), [20, 250, 40], 'edited');
      await exported('format=glb&materials=variants', true);
      assert.deepEqual(await exported('format=glb', false), plain, 'the plain export still is kept');
    });

    void it('makes the variants again when a configuration is renamed, added or deleted', async () => {
      await exported('format=glb&materials=variants', false);
      const renamed = await api.call(
        'PATCH',
        `/${modelId}/configurations/${configurations.get('Blue legs')}`,
        {
          name: 'Navy legs',
        },
      );
      assert.equal(renamed.status, 200, renamed.text);
      let document = await readGlb(await exported('format=glb&materials=variants', true));
      assert.deepEqual(variantNames(document), ['Red seat', 'Green back', 'Navy legs']);

      const added = await api.call('POST', `/${modelId}/configurations`, { name: 'Empty' });
      assert.equal(added.status, 201, added.text);
      document = await readGlb(await exported('format=glb&materials=variants', true));
      assert.deepEqual(variantNames(document), ['Red seat', 'Green back', 'Navy legs', 'Empty']);

      // A baked export of the configuration about to go: its row and its file go with it.
      await exported(configurationQuery('Green back', '3mf') + '&lod=2', true);
      const greenExports = () =>
        testApp.database.db
          .selectFrom('model_exports')
          .select('blob_key')
          .where('configuration_id', '=', configurations.get('Green back')!)
          .execute();
      const [kept] = await greenExports();
      assert.ok(kept?.blob_key && (await testApp.blobs.head(kept.blob_key)), 'the baked file is stored');
      const deleted = await api.call(
        'DELETE',
        `/${modelId}/configurations/${configurations.get('Green back')}`,
      );
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(await greenExports(), []);
      assert.ok(!(await testApp.blobs.head(kept.blob_key)), 'the baked file is removed');
      const glb = await exported('format=glb&materials=variants', true);
      assert.deepEqual(await validationErrors(glb), []);
      document = await readGlb(glb);
      assert.deepEqual(variantNames(document), ['Red seat', 'Navy legs', 'Empty']);
      assert.deepEqual(mappingsOf(document, 'Back'), [], 'no variant paints the back any more');
    });

    void it('lets a read token export a configuration and the variants', async () => {
      const reader = { 'x-api-token': await scopedToken(testApp, 'viewer', 'read') };
      const red = await readGlb(
        await exported(configurationQuery('Red seat', 'glb') + '&lod=1', true, reader),
      );
      assertColour(primitiveOf(red, 'Seat').getMaterial()?.getBaseColorFactor(), RED, 'seat at lod 1');
      await exported('format=glb&materials=variants', false, reader);
    });

    void it('refuses what does not go together, and configurations the model does not have', async () => {
      const other = await api.create('other.glb', await texturedPartsGlb(`${prefix}-other`), {
        name: 'Other',
      });
      const foreign = await api.call('POST', `/${other.id}/configurations`, { name: 'Foreign' });
      assert.equal(foreign.status, 201, foreign.text);
      const cid = configurations.get('Red seat');
      const cases: [string, number, string][] = [
        [
          'format=usdz&materials=variants',
          400,
          'materials=variants applies to glb only; usdz cannot carry material variants (export one configuration with configuration=<id>)',
        ],
        [
          'format=stl&materials=variants',
          400,
          'materials=variants applies to glb only; stl cannot carry material variants (export one configuration with configuration=<id>)',
        ],
        [
          `configuration=${cid}&materials=source`,
          400,
          'configuration applies to materials=bound only, not materials=source',
        ],
        [
          `configuration=${cid}&materials=variants`,
          400,
          'configuration applies to materials=bound only, not materials=variants',
        ],
        ['configuration=red-seat', 400, 'configuration must be the id of a configuration (a UUID)'],
        [`configuration=${randomUUID()}`, 404, 'Configuration not found'],
        [`format=obj&configuration=${foreign.json.data.id}`, 404, 'Configuration not found'],
      ];
      for (const [query, status, error] of cases) {
        const answer = await exportCall(query);
        assert.equal(answer.statusCode, status, query);
        assert.equal(answer.body, catalogError(error), query);
      }
    });
  });
}
