// Each configuration's own thumbnail, rendered on the CPU: made after the configuration is, drawn again when its
// bindings change, showing its materials where the model's thumbnail shows the model's, and removed with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { catalogApi, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';

/** Share of a PNG's pixels clearly of `hue` (the dominant channel well above the others). */
async function shareOf(png: Buffer, hue: 'red' | 'blue'): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const main = hue === 'red' ? 0 : 2;
  let count = 0;
  for (let i = 0; i < data.length; i += 3) {
    const others = [0, 1, 2].filter((channel) => channel !== main).map((channel) => data[i + channel]!);
    if (data[i + main]! > 80 && others.every((value) => data[i + main]! - value > 50)) count += 1;
  }
  return count / (info.width * info.height);
}

for (const dialect of testDialects()) {
  void describe(`configuration thumbnails (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    let modelId: string;
    const painted = `configuration-thumbnail-${dialect}-${Date.now()}`;
    let red: number;
    let blue: number;

    before(async () => {
      testApp = await createTestApp(dialect, { THUMBNAIL_REFRESH_DELAY_MS: '0' });
      testApp.startJobRunner();
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      modelId = (await api.create('two.glb', await twoPartGlb(painted), { name: 'Two parts' })).id;
      await waitForStatus(testApp.app, modelId, ['completed']);
      red = (await materials.create({ name: 'red', diffuse_r: 230, diffuse_g: 0, diffuse_b: 0 })).id;
      blue = (await materials.create({ name: 'blue', diffuse_r: 0, diffuse_g: 0, diffuse_b: 230 })).id;
    });
    after(() => testApp.close());

    const configuration = async (cid: string) => {
      const answer = await api.call('GET', `/${modelId}/configurations/${cid}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data as { thumbnail_url: string | null };
    };
    /**
     * Waits for the configuration's thumbnail to be a picture other than `before` that `shows` accepts, and answers
     * its URL and bytes. Renders queued earlier may land first (the one queued when the configuration was made
     * draws it before its bindings arrive), so the wait is for the picture, not for the first new one.
     */
    const renderedAfter = async (
      cid: string,
      before: string | null,
      shows: (png: Buffer) => Promise<boolean> = async () => true,
    ) => {
      const deadline = Date.now() + 60_000;
      for (let seen = before; ;) {
        const url = (await configuration(cid)).thumbnail_url;
        if (url && url !== before && url !== seen) {
          const file = await testApp.app.inject({ method: 'GET', url: pathOf(url) });
          assert.equal(file.statusCode, 200);
          assert.equal(file.headers['content-type'], 'image/png');
          if (await shows(file.rawPayload)) return { url, png: file.rawPayload };
          seen = url;
        }
        if (Date.now() > deadline)
          assert.fail(`configuration ${cid} has no new thumbnail showing it: ${url}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    /** Whether a picture shows a part painted `hue`. */
    const painting = (hue: 'red' | 'blue') => async (png: Buffer) => (await shareOf(png, hue)) > 0.005;
    const created = async (name: string, materialId: number) => {
      const answer = await api.call('POST', `/${modelId}/configurations`, { name });
      assert.equal(answer.status, 201, answer.text);
      const bound = await api.call('PUT', `/${modelId}/configurations/${answer.json.data.id}/bindings`, {
        bindings: [{ group_id: painted, material_id: materialId }],
      });
      assert.equal(bound.status, 200, bound.text);
      return answer.json.data.id as string;
    };

    void it('draws each configuration with its own materials, again when its bindings change, and removes it with it', async () => {
      const redId = await created('Red', red);
      const blueId = await created('Blue', blue);
      // Each picture comes to show its configuration's colour, and never the other's.
      const redPicture = await renderedAfter(redId, null, painting('red'));
      const bluePicture = await renderedAfter(blueId, null, painting('blue'));
      assert.equal(await shareOf(redPicture.png, 'blue'), 0);
      assert.equal(await shareOf(bluePicture.png, 'red'), 0);
      const model = await api.call('GET', `/${modelId}`);
      const modelPicture = await testApp.app.inject({
        method: 'GET',
        url: pathOf(model.json.data.thumbnail_url),
      });
      assert.equal(
        await shareOf(modelPicture.rawPayload, 'red'),
        0,
        "the model's own thumbnail is unpainted",
      );

      const moved = await api.call('PUT', `/${modelId}/configurations/${blueId}/bindings`, {
        bindings: [{ group_id: painted, material_id: red }],
      });
      assert.equal(moved.status, 200);
      const redrawn = await renderedAfter(blueId, bluePicture.url, painting('red'));
      assert.deepEqual(redrawn.png, redPicture.png, 'the same bindings draw the same picture');

      const deleted = await api.call('DELETE', `/${modelId}/configurations/${blueId}`);
      assert.equal(deleted.status, 200);
      const gone = await testApp.app.inject({ method: 'GET', url: pathOf(redrawn.url) });
      assert.equal(gone.statusCode, 404, 'the deleted configuration takes its thumbnail along');
    });

    void it("draws the configurations again when the model's own bindings change", async () => {
      const plain = await api.call('POST', `/${modelId}/configurations`, { name: 'Plain' });
      const plainId = plain.json.data.id as string;
      const first = await renderedAfter(plainId, null);
      assert.equal(await shareOf(first.png, 'blue'), 0);
      await materials.bind(blue, [painted]);
      // An unbound part shows the model's binding.
      await renderedAfter(plainId, first.url, painting('blue'));
      const red = await configuration((await api.call('GET', `/${modelId}/configurations`)).json.data[0].id);
      assert.ok(red.thumbnail_url, 'a configuration binding the part keeps its picture');
    });
  });
}
