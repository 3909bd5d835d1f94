import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import { makeZip } from '../fixtures/make-zip.ts';
import { capturingLogger } from '../helpers/capturing-logger.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

/** A triangle with a line beside it: the renderer draws the triangle and warns that it left the line out. */
async function triangleAndLineGlb(): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const accessor = (values: number[]) =>
    document.createAccessor().setType('VEC3').setArray(new Float32Array(values)).setBuffer(buffer);
  const triangle = document.createPrimitive().setAttribute('POSITION', accessor([0, 0, 0, 1, 0, 0, 0, 1, 0]));
  const line = document
    .createPrimitive()
    .setMode(1) // LINES
    .setAttribute('POSITION', accessor([0, 0, 1, 1, 1, 1]));
  const mesh = document.createMesh('Mixed').addPrimitive(triangle).addPrimitive(line);
  document.createScene().addChild(document.createNode('Mixed').setMesh(mesh));
  return new NodeIO().writeBinary(document);
}

// Logging is the same on both databases; SQLite keeps this suite quick.
void describe('pipeline and renderer lines in the service log', () => {
  const capture = capturingLogger();
  let testApp: TestApp;
  let api: ReturnType<typeof catalogApi>;
  before(async () => {
    testApp = await createTestApp('sqlite', {}, { logger: capture.logger });
    api = catalogApi(testApp.app, testApp.auth);
    testApp.startJobRunner();
  });
  after(() => testApp.close());

  /** The lines about one model. */
  const linesOf = (modelId: string) => capture.lines.filter((line) => line.model_id === modelId);

  void it('a pipeline warning reaches pino with the model id, the job id and its step', async () => {
    // An OBJ whose material names a texture that was not uploaded with it.
    const zip = makeZip([
      {
        name: 'tri.obj',
        data: Buffer.from('mtllib tri.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'),
      },
      { name: 'tri.mtl', data: Buffer.from('newmtl red\nKd 1 0 0\nmap_Kd missing.png\n') },
    ]);
    const model = (await api.upload('tri.zip', zip)).json.data;
    const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed']);
    assert.equal(done.status, 'completed', done.error);
    const warning = linesOf(model.id).find((line) => String(line.msg).includes('missing.png'));
    assert.ok(warning, `a line names the missing texture: ${JSON.stringify(linesOf(model.id))}`);
    assert.equal(warning.level, 40, 'at warn level');
    assert.match(String(warning.job_id), /^\d+$/);
    assert.match(String(warning.step), /^import-/);
    const converted = linesOf(model.id).find((line) => line.msg === 'model converted');
    assert.ok(converted, 'a completion line');
    assert.equal(converted.job_id, warning.job_id, 'the same job id as the completion line');
    // Where the job's time went, in whole milliseconds: a conversion takes some, storing and recording may round to 0.
    assert.ok(Number.isInteger(converted.conversion_ms) && Number(converted.conversion_ms) > 0);
    for (const field of ['store_ms', 'record_ms'])
      assert.ok(Number.isInteger(converted[field]) && Number(converted[field]) >= 0, field);
    // At debug, the thumbnail's time follows the conversion's stage log.
    const rendered = linesOf(model.id).filter((line) =>
      /^render-thumbnail: thumbnail rendered in \d+ ms$/.test(String(line.msg)),
    );
    assert.equal(rendered.length, 1, JSON.stringify(linesOf(model.id).map((line) => line.msg)));
    assert.equal(rendered[0]!.level, 20, 'at debug level');
  });

  void it('a renderer warning reaches pino from the conversion and from a regeneration', async () => {
    const model = (await api.upload('mixed.glb', await triangleAndLineGlb())).json.data;
    const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed']);
    assert.equal(done.status, 'completed', done.error);
    const fromRender = () =>
      linesOf(model.id).filter((line) => line.step === 'render-thumbnail' && line.level === 40);
    assert.equal(fromRender().length, 1, JSON.stringify(linesOf(model.id)));
    assert.match(String(fromRender()[0]!.msg), /lines\) not drawn/);

    const queued = await api.call('POST', `/${model.id}/regenerate-thumbnail`);
    assert.equal(queued.status, 200);
    const deadline = Date.now() + 30_000;
    while (fromRender().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [first, second] = fromRender();
    assert.ok(second, 'the regeneration logged the warning too');
    assert.notEqual(second.job_id, first!.job_id, 'each line carries its own job');
  });
});
