// The GLB the variants suites load in a browser: a chair of three textured parts, its seat bound grey, and three
// configurations each painting one part, exported with `materials=variants`.
import assert from 'node:assert/strict';
import { catalogApi } from '../../helpers/catalog-api.ts';
import { materialApi } from '../../helpers/material-api.ts';
import { createTestApp, notRendered } from '../../helpers/test-app.ts';
import { waitForStatus } from '../../helpers/wait-for-status.ts';
import { texturedPartGroup, texturedPartsGlb, type TexturedPart } from '../../exports/textured-parts.ts';

/** An sRGB colour as the material service states it. */
export type Rgb = [number, number, number];

/** Each configuration, in the order they are made (the variants' order): the part it paints and its colour. */
export const PAINTS: { name: string; part: TexturedPart; rgb: Rgb }[] = [
  { name: 'Red seat', part: 'Seat', rgb: [200, 20, 20] },
  { name: 'Green back', part: 'Back', rgb: [20, 180, 40] },
  { name: 'Blue legs', part: 'Legs', rgb: [10, 30, 250] },
];

/** The colour the model itself binds the seat to; the back and the legs keep their texture. */
export const GREY: Rgb = [120, 120, 120];

/** How long the export may take to be made. */
const EXPORT_WAIT_MS = 60_000;

/**
 * Makes the chair and its configurations in an app of its own (SQLite, pictures not drawn) and returns the bytes of
 * its variants GLB; the app is closed again before it returns.
 */
export async function variantsChairGlb(): Promise<Buffer> {
  const testApp = await createTestApp('sqlite');
  try {
    testApp.startJobRunner(notRendered);
    const api = catalogApi(testApp.app, testApp.auth);
    const materials = materialApi(testApp.app, testApp.auth);
    const prefix = `variants-e2e-${Date.now()}`;
    const model = await api.create('chair.glb', await texturedPartsGlb(prefix), { name: 'Chair' });
    await waitForStatus(testApp.app, model.id, ['completed']);
    const [diffuse_r, diffuse_g, diffuse_b] = GREY;
    const grey = await materials.create({ name: 'grey', diffuse_r, diffuse_g, diffuse_b });
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
    // The export is made by a job: 202 until it is there.
    const url = `/api/models/${model.id}/export?format=glb&materials=variants`;
    const deadline = Date.now() + EXPORT_WAIT_MS;
    for (;;) {
      const answer = await testApp.app.inject({ method: 'GET', url, headers: testApp.auth });
      if (answer.statusCode === 200) return answer.rawPayload;
      assert.equal(answer.statusCode, 202, answer.body);
      assert.ok(Date.now() < deadline, 'the export is made within a minute');
      await new Promise((done) => setTimeout(done, 50));
    }
  } finally {
    await testApp.close();
  }
}
