// BCF 3.0: a model's annotations and views exported as a zip whose XML the BCF 3.0 schemas accept, imported into a
// model with the same parts as the same topics (text, author, status, dates, part, pin), a topic of another tool
// pinned by its camera, and refusals of what is not a BCF 3.0 zip.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeZip } from '../../src/writers/write-zip.ts';
import { catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { addModelWithParts } from '../helpers/model-with-parts.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { unzipAll, validateAgainst, xsdValidator } from './bcf-schemas.ts';
import { reviewApi, scopedToken, viewBody } from './review-fixtures.ts';

/** An IFC GlobalId, as IFC parts carry it for group id. */
const IFC_PART = '2O2Fr$t4X7Zf8NOew3FLOH';
const PLAIN_PART = 'plain-part';

const close = (a: readonly number[], b: readonly number[], label: string) =>
  a.forEach((value, axis) => assert.ok(Math.abs(value - b[axis]!) < 1e-9, `${label}: ${a} ≈ ${b}`));

for (const dialect of testDialects()) {
  void describe(`BCF export and import (${dialect})`, () => {
    let testApp: TestApp;
    let writer: string;
    let reader: string;
    let call: ReturnType<typeof reviewApi>;
    const source = randomUUID();
    let exported: Buffer;

    before(async () => {
      testApp = await createTestApp(dialect);
      await addModelWithParts(testApp.database, source, [IFC_PART, PLAIN_PART]);
      writer = await scopedToken(testApp, 'Dana Design', 'write');
      reader = await scopedToken(testApp, 'Viewer', 'read');
      call = reviewApi(testApp.app);
      const add = async (url: string, body: object) => {
        const answer = await call('POST', `/${source}${url}`, writer, body);
        assert.equal(answer.status, 201, answer.text);
        return answer.json.data;
      };
      const wall = await add('/annotations', {
        group_id: IFC_PART,
        position: [0.25, 0.75, 1],
        normal: [0, 0, 1],
        text: 'Wall too thin\nCheck against the <fire> rating & fix',
      });
      await call('PATCH', `/${source}/annotations/${wall.id}`, writer, { resolved: true });
      await add('/annotations', {
        group_id: PLAIN_PART,
        position: [1, 0.5, 0.125],
        normal: [0.6, 0.8, 0],
        text: 'Pipe clash',
      });
      await add('/views', viewBody([PLAIN_PART]));
      await add('/views', { ...viewBody([], [IFC_PART]), xray: false, level: 2, name: 'Isolated wall' });
      const response = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${source}/bcf`,
        headers: { 'x-api-token': reader },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-disposition']), /^attachment; filename=".+\.bcf"$/);
      exported = response.rawPayload;
    });
    after(() => testApp.close());

    const importBcf = async (modelId: string, bytes: Buffer, token = writer, asForm = false) => {
      const form = multipartForm({}, { field: 'file', filename: 'review.bcf', data: bytes });
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${modelId}/bcf`,
        headers: asForm
          ? { 'x-api-token': token, ...form.headers }
          : { 'x-api-token': token, 'content-type': 'application/zip' },
        payload: asForm ? form.payload : bytes,
      });
      return { status: response.statusCode, text: response.body, json: JSON.parse(response.body) };
    };

    void it('writes one topic folder per annotation and view, each valid against the BCF 3.0 schemas', async (t) => {
      const files = await unzipAll(exported);
      const names = [...files.keys()];
      assert.equal(names[0], 'bcf.version');
      assert.ok(names.includes('extensions.xml'));
      const folders = new Set(names.filter((name) => name.includes('/')).map((name) => name.split('/')[0]));
      assert.equal(folders.size, 4);
      for (const folder of folders) {
        assert.ok(files.has(`${folder}/markup.bcf`) && files.has(`${folder}/viewpoint.bcfv`), folder!);
      }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-bcf-'));
      try {
        for (const [name, data] of files) {
          fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
          fs.writeFileSync(path.join(dir, name), data);
        }
        const pick = (pattern: RegExp) =>
          names.filter((name) => pattern.test(name)).map((n) => path.join(dir, n));
        const validator = xsdValidator();
        t.diagnostic(`validated with ${validator}`);
        const complaints = [
          validateAgainst(validator, 'version.xsd', pick(/^bcf\.version$/), 'Version'),
          validateAgainst(validator, 'extensions.xsd', pick(/^extensions\.xml$/), 'Extensions'),
          validateAgainst(validator, 'markup.xsd', pick(/\/markup\.bcf$/), 'Markup'),
          validateAgainst(validator, 'visinfo.xsd', pick(/\.bcfv$/), 'VisualizationInfo'),
        ].join('');
        assert.equal(complaints, '');
        // The validator does refuse what breaks the schema: a topic without its required status.
        const broken = path.join(dir, 'broken.bcf');
        const markup = fs.readFileSync(pick(/\/markup\.bcf$/)[0]!, 'utf8');
        fs.writeFileSync(broken, markup.replace(/ TopicStatus="[^"]*"/, ''));
        if (validator !== 'structure')
          assert.notEqual(validateAgainst(validator, 'markup.xsd', [broken], 'Markup'), '');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      const viewpoints = [...files]
        .filter(([name]) => name.endsWith('.bcfv'))
        .map(([, data]) => data.toString());
      assert.ok(
        viewpoints.some((xml) => xml.includes(`IfcGuid="${IFC_PART}"`)),
        'IFC parts by IfcGuid',
      );
      assert.ok(viewpoints.some((xml) => xml.includes(`<AuthoringToolId>${PLAIN_PART}</AuthoringToolId>`)));
      const markups = [...files]
        .filter(([name]) => name.endsWith('markup.bcf'))
        .map(([, data]) => data.toString());
      assert.ok(
        markups.some(
          (xml) => xml.includes('<Title>Wall too thin</Title>') && xml.includes('TopicStatus="Closed"'),
        ),
      );
      assert.ok(markups.some((xml) => xml.includes('&lt;fire&gt; rating &amp; fix')));
    });

    void it('imports its own export into a model with the same parts as the same topics', async () => {
      const target = randomUUID();
      await addModelWithParts(testApp.database, target, [IFC_PART, PLAIN_PART]);
      const answer = await importBcf(target, exported);
      assert.equal(answer.status, 200, answer.text);
      const { topics, ...counts } = answer.json.data;
      assert.deepEqual(counts, { imported: 2, views: 2, notes: 0, skipped: 0, skipped_topics: [] });
      assert.deepEqual(topics.map((topic: { became: string }) => topic.became).sort(), [
        'annotation',
        'annotation',
        'view',
        'view',
      ]);

      const before = (await call('GET', `/${source}/annotations`, reader)).json.data;
      const after = (await call('GET', `/${target}/annotations`, reader)).json.data;
      assert.equal(after.length, 2);
      for (const [index, original] of before.entries()) {
        const copy = after[index];
        const { normal, ...rest } = copy;
        const { normal: originalNormal, ...originalRest } = original;
        assert.deepEqual(
          { ...rest, id: undefined, model_id: undefined },
          { ...originalRest, id: undefined, model_id: undefined },
        );
        close(normal, originalNormal, 'normal');
      }
      const views = (await call('GET', `/${source}/views`, reader)).json.data;
      const copies = (await call('GET', `/${target}/views`, reader)).json.data;
      assert.equal(copies.length, 2);
      for (const [index, original] of views.entries()) {
        const copy = copies[index];
        assert.deepEqual(
          { ...copy, id: undefined, model_id: undefined, camera: undefined, sections: undefined },
          { ...original, id: undefined, model_id: undefined, camera: undefined, sections: undefined },
        );
        assert.deepEqual(copy.camera.position, original.camera.position);
        close(copy.camera.target, original.camera.target, 'target');
        assert.deepEqual(copy.camera.up, original.camera.up);
        assert.equal(copy.camera.fov, original.camera.fov);
        close(copy.sections[0].normal, original.sections[0].normal, 'section normal');
        close([copy.sections[0].constant], [original.sections[0].constant], 'section constant');
      }

      const again = await importBcf(target, exported, writer, true);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.data.imported + again.json.data.views, 0);
      assert.deepEqual(
        again.json.data.skipped_topics.map((topic: { reason: string }) => topic.reason),
        ['already imported', 'already imported', 'already imported', 'already imported'],
      );
    });

    void it('keeps a topic whose part the model does not have as a saved view on its camera, with its topic', async () => {
      const target = randomUUID();
      await addModelWithParts(testApp.database, target, [PLAIN_PART]);
      const answer = await importBcf(target, exported, writer, true);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.data.imported, 1);
      assert.equal(answer.json.data.views, 3);
      assert.equal(answer.json.data.skipped, 0);
      const kept = answer.json.data.topics.find(
        (topic: { title: string }) => topic.title === 'Wall too thin',
      );
      assert.equal(kept.became, 'view');
      const [topic] = (await call('GET', `/${target}/topics`, reader)).json.data.filter(
        (candidate: { title: string }) => candidate.title === 'Wall too thin',
      );
      assert.equal(topic.view_id, kept.id);
      assert.equal(topic.status, 'Closed');
      assert.equal(topic.comments[0].text.split('\n')[0], 'Wall too thin');
      // The topic goes with the view it became.
      assert.equal((await call('DELETE', `/${target}/views/${kept.id}`, writer)).status, 200);
      const left = (await call('GET', `/${target}/topics`, reader)).json.data;
      assert.equal(left.length, 3);
      assert.ok(left.every((candidate: { view_id: string | null }) => candidate.view_id !== kept.id));
    });

    void it("pins another tool's topic on its part along the camera's line of sight", async () => {
      const target = randomUUID();
      await addModelWithParts(testApp.database, target, [IFC_PART]);
      const guid = randomUUID();
      const markup = `<?xml version="1.0" encoding="UTF-8"?>
<Markup><Topic Guid="${guid}" TopicType="Clash" TopicStatus="Resolved">
  <Title>Duct through beam</Title><CreationDate>2026-03-01T10:00:00+01:00</CreationDate>
  <CreationAuthor>someone@example.com</CreationAuthor><DueDate>+275760-09-13T00:00:00.000Z</DueDate>
  <Description>Reroute the duct</Description>
  <Viewpoints><ViewPoint Guid="${randomUUID()}"><Viewpoint>vp.bcfv</Viewpoint></ViewPoint></Viewpoints>
</Topic></Markup>`;
      const viewpoint = `<?xml version="1.0"?>
<VisualizationInfo Guid="${randomUUID()}"><Components><Selection><Component IfcGuid="${IFC_PART}"/></Selection></Components>
<PerspectiveCamera><CameraViewPoint><X>0.2</X><Y>-0.3</Y><Z>5</Z></CameraViewPoint>
<CameraDirection><X>0</X><Y>0</Y><Z>-1</Z></CameraDirection><CameraUpVector><X>0</X><Y>1</Y><Z>0</Z></CameraUpVector>
<FieldOfView>60</FieldOfView><AspectRatio>1.5</AspectRatio></PerspectiveCamera></VisualizationInfo>`;
      const text = (value: string) => new TextEncoder().encode(value);
      const zip = writeZip(
        [
          { name: 'bcf.version', data: text('<Version VersionId="3.0"/>') },
          { name: `${guid}/markup.bcf`, data: text(markup) },
          { name: `${guid}/vp.bcfv`, data: text(viewpoint) },
        ],
        { deflate: true },
      );
      const answer = await importBcf(target, Buffer.from(zip));
      assert.deepEqual(
        { ...answer.json.data, topics: undefined },
        { imported: 1, views: 0, notes: 0, skipped: 0, skipped_topics: [], topics: undefined },
      );
      const [pin] = (await call('GET', `/${target}/annotations`, reader)).json.data;
      // The camera stands at model (0.2, 5, 0.3) looking down; the part's centre (0.5, 0.5, 0.5) is 4.5 m ahead.
      assert.deepEqual(
        { ...pin, id: undefined, model_id: undefined },
        {
          id: undefined,
          model_id: undefined,
          group_id: IFC_PART,
          position: [0.2, 0.5, 0.3],
          normal: [0, 1, 0],
          text: 'Reroute the duct',
          author: 'someone@example.com',
          resolved: true,
          created_at: '2026-03-01T09:00:00.000Z',
          updated_at: '2026-03-01T09:00:00.000Z',
        },
      );
      assert.equal(pin.id, guid, 'the topic keeps its Guid');
      const [topic] = (await call('GET', `/${target}/topics`, reader)).json.data;
      assert.deepEqual(
        [topic.id, topic.annotation_id, topic.topic_type, topic.status],
        [guid, guid, 'Clash', 'Resolved'],
      );
      assert.equal(topic.due_date, null, 'a date past year 9999 is no date either database keeps');
    });

    void it('refuses what is not a BCF 3.0 zip with a 400, and a read token with a 403', async () => {
      const text = (value: string) => new TextEncoder().encode(value);
      const cases: [Buffer, RegExp][] = [
        [Buffer.from('not a zip at all'), /^The file is not a BCF zip/],
        [
          Buffer.from(writeZip([{ name: 'a.txt', data: text('x') }], { deflate: false })),
          /has no bcf\.version$/,
        ],
        [
          Buffer.from(
            writeZip([{ name: 'bcf.version', data: text('<Version VersionId="2.1"/>') }], { deflate: false }),
          ),
          /^BCF 2\.1 is not read; export the topics as BCF 3\.0$/,
        ],
        [
          Buffer.from(
            writeZip(
              [
                { name: 'bcf.version', data: text('<Version VersionId="3.0"/>') },
                {
                  name: 't/markup.bcf',
                  data: text('<Markup><Topic Guid="t"><Title>&#x110000;</Title></Topic></Markup>'),
                },
              ],
              { deflate: true },
            ),
          ),
          /^t\/markup\.bcf cannot be read: "&#x110000;" is not a character XML allows \(line 1\)$/,
        ],
        [
          // A few kilobytes of zip, 4.2 MB of XML nested 600,000 deep: refused at the nesting cap.
          Buffer.from(
            writeZip(
              [
                { name: 'bcf.version', data: text('<Version VersionId="3.0"/>') },
                { name: 't/markup.bcf', data: text(`${'<a>'.repeat(600_000)}${'</a>'.repeat(600_000)}`) },
              ],
              { deflate: true },
            ),
          ),
          /^t\/markup\.bcf cannot be read: elements are nested deeper than 256 levels \(line 1\)$/,
        ],
      ];
      for (const [bytes, message] of cases) {
        const answer = await importBcf(source, bytes);
        assert.equal(answer.status, 400, answer.text);
        assert.match(answer.json.error, message);
      }
      const empty = await importBcf(source, Buffer.alloc(0));
      assert.equal(empty.status, 400, empty.text);
      const refused = await importBcf(source, exported, reader);
      assert.equal(refused.status, 403);
      assert.equal(refused.text, catalogError('token is read-only'));
      const missing = await importBcf(randomUUID(), exported);
      assert.equal(missing.text, catalogError('Model not found'));
    });
  });
}
