// A share link made with `configurations: true` shows the model's configurations, read-only: their list, the parts
// painted with one of them, and each one's GLB and USDZ; any other link answers 404 for all of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { srgbToLinear } from '../../src/writers/bound-material.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, notRendered, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { readGlb } from '../pipeline/documents.ts';
import { texturedPartGroup, texturedPartsGlb, type TexturedPart } from '../exports/textured-parts.ts';

const GONE = catalogError('Share link not found');

for (const dialect of testDialects()) {
  void describe(`share links with configurations (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let modelId: string;
    let otherId: string;
    let blueBack: string;
    let otherConfiguration: string;
    const material = { grey: 0, blue: 0, red: 0 };
    const prefix = `share-configurations-${dialect}-${Date.now()}`;
    const group = (part: TexturedPart) => texturedPartGroup(prefix, part);

    const get = async (url: string) => {
      const response = await testApp.app.inject({ method: 'GET', url });
      return {
        status: response.statusCode,
        text: response.body,
        headers: response.headers,
        raw: response.rawPayload,
      };
    };
    const createShare = async (id: string, body?: Record<string, unknown>) => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${id}/shares`,
        headers: testApp.auth,
        ...(body ? { payload: body } : {}),
      });
      assert.equal(response.statusCode, 201, response.body);
      const data = JSON.parse(response.body).data as { id: string; url: string; configurations: boolean };
      return { ...data, secret: /\/s\/([A-Za-z0-9_-]+)$/.exec(data.url)![1]! };
    };
    const configure = async (id: string, name: string, groupId: string, materialId: number) => {
      const made = await api.call('POST', `/${id}/configurations`, { name, description: `${name}.` });
      assert.equal(made.status, 201, made.text);
      const cid = made.json.data.id as string;
      const bound = await api.call('PUT', `/${id}/configurations/${cid}/bindings`, {
        bindings: [{ group_id: groupId, material_id: materialId }],
      });
      assert.equal(bound.status, 200, bound.text);
      return cid;
    };
    /** Asks until the file answers 200: the first answer is a 202 with Retry-After while the export is made. */
    const fileOf = async (url: string) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const answer = await get(url);
        if (answer.status === 200) return answer;
        assert.equal(answer.status, 202, `${url}: ${answer.text}`);
        assert.equal(answer.headers['retry-after'], '1');
        if (Date.now() > deadline) assert.fail(`${url} never finished: ${answer.text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    before(async () => {
      testApp = await createTestApp(dialect);
      testApp.startJobRunner(notRendered);
      api = catalogApi(testApp.app, testApp.auth);
      const materials = materialApi(testApp.app, testApp.auth);
      modelId = (await api.create('chair.glb', await texturedPartsGlb(prefix), { name: 'Chair' })).id;
      otherId = (await api.create('other.glb', await texturedPartsGlb(`${prefix}-other`), { name: 'Other' }))
        .id;
      await waitForStatus(testApp.app, modelId, ['completed']);
      await waitForStatus(testApp.app, otherId, ['completed']);
      material.grey = (
        await materials.create({ name: 'Grey', diffuse_r: 120, diffuse_g: 120, diffuse_b: 120 })
      ).id;
      material.blue = (
        await materials.create({ name: 'Blue', diffuse_r: 10, diffuse_g: 30, diffuse_b: 250 })
      ).id;
      material.red = (
        await materials.create({ name: 'Red', diffuse_r: 200, diffuse_g: 20, diffuse_b: 20 })
      ).id;
      // The present binding: the seat is grey; the back and legs keep their own material.
      await materials.bind(material.grey, [group('Seat')]);
      blueBack = await configure(modelId, 'Blue back', group('Back'), material.blue);
      otherConfiguration = await configure(
        otherId,
        'Red back',
        texturedPartGroup(`${prefix}-other`, 'Back'),
        material.red,
      );
    });
    after(() => testApp.close());

    void it('stores the flag, false unless asked for, and returns it with the link and its model', async () => {
      const plain = await createShare(modelId);
      assert.equal(plain.configurations, false);
      const open = await createShare(modelId, { configurations: true, annotations: true });
      assert.equal(open.configurations, true);
      const listed = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${modelId}/shares`,
        headers: testApp.auth,
      });
      const byId = new Map(
        (JSON.parse(listed.body).data as { id: string; configurations: boolean; annotations: boolean }[]).map(
          (share) => [share.id, share],
        ),
      );
      assert.equal(byId.get(plain.id)?.configurations, false);
      assert.equal(byId.get(open.id)?.configurations, true);
      assert.equal(byId.get(open.id)?.annotations, true);
      const rows = await testApp.database.db
        .selectFrom('model_shares')
        .select(['id', 'configurations'])
        .where('id', 'in', [plain.id, open.id])
        .execute();
      assert.deepEqual(
        new Map(rows.map((row) => [row.id, Number(row.configurations)])),
        new Map([
          [plain.id, 0],
          [open.id, 1],
        ]),
      );
      for (const [share, expected] of [
        [plain, false],
        [open, true],
      ] as const) {
        const model = JSON.parse((await get(`/s/${share.secret}/models/${modelId}`)).text).data;
        assert.equal(model.configurations, expected);
      }
      const refused = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${modelId}/shares`,
        headers: testApp.auth,
        payload: { configurations: 'yes' },
      });
      assert.equal(refused.statusCode, 400, refused.body);
    });

    void it('answers 404 for every configuration read through a link made without them', async () => {
      const { secret } = await createShare(modelId, { annotations: true });
      const base = `/s/${secret}/models/${modelId}`;
      for (const url of [
        `${base}/configurations`,
        `${base}/parts?configuration_id=${blueBack}`,
        `${base}/configurations/${blueBack}/thumbnail`,
        `${base}/configurations/${blueBack}/model.glb`,
        `${base}/configurations/${blueBack}/model.usdz`,
      ]) {
        const answer = await get(url);
        assert.equal(answer.status, 404, url);
        assert.equal(answer.text, GONE, url);
      }
      assert.equal((await get(`${base}/parts`)).status, 200, 'the parts themselves stay open');
    });

    void it('lists the configurations read-only and paints the parts with the one chosen', async () => {
      const { secret } = await createShare(modelId, { configurations: true });
      const base = `/s/${secret}/models/${modelId}`;
      const list = await get(`${base}/configurations`);
      assert.equal(list.status, 200, list.text);
      assert.equal(list.headers['cache-control'], 'private, no-cache');
      const [only, ...rest] = JSON.parse(list.text).data;
      assert.deepEqual(rest, []);
      assert.deepEqual(Object.keys(only).sort(), ['description', 'id', 'name', 'thumbnail_url']);
      assert.equal(only.id, blueBack);
      assert.equal(only.name, 'Blue back');
      assert.equal(only.description, 'Blue back.');
      if (only.thumbnail_url !== null) {
        assert.match(only.thumbnail_url, new RegExp(`${base}/configurations/${blueBack}/thumbnail$`));
        assert.equal((await get(new URL(only.thumbnail_url).pathname)).status, 200);
      }

      const materialOf = async (query: string) => {
        const answer = await get(`${base}/parts${query}`);
        assert.equal(answer.status, 200, answer.text);
        const parts = JSON.parse(answer.text).data as { group_id: string; material: { id: number } | null }[];
        return Object.fromEntries(parts.map((part) => [part.group_id, part.material?.id ?? null]));
      };
      // The configured part shows its material there; the others their present binding, or none.
      assert.deepEqual(await materialOf(`?configuration_id=${blueBack}`), {
        [group('Seat')]: material.grey,
        [group('Back')]: material.blue,
        [group('Legs')]: null,
      });
      assert.deepEqual(await materialOf(''), {
        [group('Seat')]: material.grey,
        [group('Back')]: null,
        [group('Legs')]: null,
      });
      // Nothing is written through the link: the configuration routes take no other method.
      const write = await testApp.app.inject({ method: 'POST', url: `${base}/configurations`, payload: {} });
      assert.equal(write.statusCode, 404);
    });

    void it("serves a configuration's GLB and USDZ, starting the export and answering 202 meanwhile", async () => {
      const { secret } = await createShare(modelId, { configurations: true });
      const base = `/s/${secret}/models/${modelId}/configurations/${blueBack}`;
      const glb = await fileOf(`${base}/model.glb`);
      assert.equal(glb.headers['content-type'], 'model/gltf-binary');
      assert.equal(glb.headers['cache-control'], 'private, no-cache');
      const document = await readGlb(glb.raw);
      const back = document
        .getRoot()
        .listNodes()
        .find((node) => node.getName() === 'Back');
      const colour = back?.getMesh()?.listPrimitives()[0]?.getMaterial()?.getBaseColorFactor();
      assert.ok(colour, 'the export has the back');
      assert.ok(
        [10, 30, 250].every((channel, i) => Math.abs(colour[i]! - srgbToLinear(channel)) < 1e-4),
        `the back is blue: ${String(colour)}`,
      );
      const usdz = await fileOf(`${base}/model.usdz`);
      assert.equal(usdz.headers['content-type'], 'model/vnd.usdz+zip');
      assert.equal(usdz.raw.subarray(0, 2).toString('latin1'), 'PK');
    });

    void it("answers 404 for another model's configuration and for another model", async () => {
      const { secret } = await createShare(modelId, { configurations: true });
      const base = `/s/${secret}/models/${modelId}`;
      for (const url of [
        `${base}/parts?configuration_id=${otherConfiguration}`,
        `${base}/parts?configuration_id=not-a-configuration`,
        `${base}/configurations/${otherConfiguration}/thumbnail`,
        `${base}/configurations/${otherConfiguration}/model.glb`,
        `${base}/configurations/${otherConfiguration}/model.usdz`,
        `/s/${secret}/models/${otherId}/configurations`,
        `/s/${secret}/models/${otherId}/configurations/${otherConfiguration}/model.glb`,
      ]) {
        const answer = await get(url);
        assert.equal(answer.status, 404, url);
        assert.equal(answer.text, GONE, url);
      }
    });

    void it('says in oEmbed whether the link shows configurations', async () => {
      for (const configurations of [true, false]) {
        const { url } = await createShare(modelId, { configurations });
        const answer = await get(`/oembed?url=${encodeURIComponent(url)}`);
        assert.equal(answer.status, 200, answer.text);
        const oembed = JSON.parse(answer.text);
        assert.equal(oembed.version, '1.0');
        assert.equal(oembed.type, 'rich');
        assert.equal(oembed.title, 'Chair');
        assert.equal(oembed.configurations, configurations);
        assert.equal(
          /title="Chair \(configurations and AR\)"/.test(oembed.html),
          configurations,
          oembed.html,
        );
      }
    });
  });
}
