// BCF with a real IFC model: buildingSMART's 19 BCF 3.0 test cases about Architectural.ifc keep every one of their
// 21 topics (title, comments, labels, status, due date, author), aggregates and spaces stand for their parts, and
// an export imported into another upload of the same file gives the same topics. Parts keep their GlobalIds as
// group ids, so an annotation's topic lands on the same part of another upload (GlobalIds come from the file).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { unzipBcf } from '../../src/review/bcf/unzip-bcf.ts';
import { catalogApi, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, notRendered, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { bcfZipComplaints } from './bcf-schemas.ts';
import { reviewApi, scopedToken, type Answer } from './review-fixtures.ts';

const IFC = 'ifc/Architectural.ifc';
const TEST_CASES = fileURLToPath(new URL('../fixtures/bcf/test-cases/', import.meta.url));
const CASE_FILES = fs
  .readdirSync(TEST_CASES)
  .filter((name) => name.endsWith('.bcf'))
  .sort();

/** What a test case's markup says, read with plain patterns (not the importer's reader). */
interface ExpectedTopic {
  guid: string;
  title: string;
  status: string;
  labels: string[];
  author: string;
  due: string | null;
  comments: string[];
}

async function expectedTopics(): Promise<ExpectedTopic[]> {
  const topics: ExpectedTopic[] = [];
  for (const name of CASE_FILES) {
    for (const [path, xml] of await unzipBcf(fs.readFileSync(`${TEST_CASES}${name}`))) {
      if (!path.endsWith('/markup.bcf')) continue;
      const one = (pattern: RegExp) => pattern.exec(xml)?.[1] ?? null;
      const comments = [
        ...xml.matchAll(/<Comment Guid="[^"]*">([\s\S]*?)<\/Comment>\s*(?=<Comment |<\/Comments>)/g),
      ];
      topics.push({
        guid: one(/<Topic[^>]*\sGuid="([^"]+)"/)!,
        title: one(/<Title>([^<]*)<\/Title>/)!,
        status: one(/TopicStatus="([^"]*)"/)!,
        labels: [...xml.matchAll(/<Label>([^<]*)<\/Label>/g)].map((match) => match[1]!),
        author: one(/<CreationAuthor>([^<]*)<\/CreationAuthor>/)!,
        due: one(/<DueDate>([^<]*)<\/DueDate>/),
        // The importer keeps a comment's text without the white space around it.
        comments: comments.map((match) => (/<Comment>([^<]*)<\/Comment>/.exec(match[1]!)?.[1] ?? '').trim()),
      });
    }
  }
  return topics;
}

/** A stored topic without what differs between models (ids and links). */
function comparable(topic: Record<string, unknown>) {
  const { id: _id, model_id: _model, annotation_id: _annotation, view_id: _view, ...rest } = topic;
  return rest;
}

for (const dialect of testDialects()) {
  void describe(`BCF of an IFC model (${dialect})`, () => {
    let testApp: TestApp;
    let call: ReturnType<typeof reviewApi>;
    let writer: string;
    const ids: string[] = [];

    const importBcf = async (modelId: string, bytes: Buffer): Promise<Answer> => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${modelId}/bcf`,
        headers: { 'x-api-token': writer, 'content-type': 'application/zip' },
        payload: bytes,
      });
      return { status: response.statusCode, text: response.body, json: JSON.parse(response.body) };
    };
    const exportBcf = async (modelId: string): Promise<Buffer> => {
      const response = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${modelId}/bcf`,
        headers: { 'x-api-token': writer },
      });
      assert.equal(response.statusCode, 200);
      return response.rawPayload;
    };

    before(async () => {
      testApp = await createTestApp(dialect);
      // No picture is looked at here: the thumbnail render of each conversion is left out.
      testApp.startJobRunner(notRendered);
      call = reviewApi(testApp.app);
      writer = await scopedToken(testApp, 'Structural check', 'write');
      const catalog = catalogApi(testApp.app, testApp.auth);
      // Two uploads of the same file: the second is the fresh model the export goes into.
      for (const name of ['first.ifc', 'second.ifc']) {
        const created = await catalog.create(name, sample(IFC));
        ids.push((await waitForStatus(testApp.app, created.id, ['completed'])).id);
      }
    });
    after(() => testApp.close());

    void it("keeps all 21 topics of buildingSMART's 19 BCF 3.0 test cases, each with its comments", async () => {
      const [first] = ids as [string];
      const expected = await expectedTopics();
      assert.equal(expected.length, 21);
      const became = new Map<string, string>();
      for (const name of CASE_FILES) {
        const answer = await importBcf(first, fs.readFileSync(`${TEST_CASES}${name}`));
        assert.equal(answer.status, 200, `${name}: ${answer.text}`);
        assert.equal(answer.json.data.skipped, 0, name);
        for (const topic of answer.json.data.topics) became.set(topic.guid, topic.became);
      }
      const topics = (await call('GET', `/${first}/topics`, writer)).json.data;
      assert.equal(topics.length, 21);
      for (const want of expected) {
        const topic = topics.find((candidate: { id: string }) => candidate.id === want.guid);
        assert.ok(topic, `topic ${want.title} is kept`);
        assert.equal(topic.title, want.title);
        assert.equal(topic.status, want.status);
        assert.deepEqual(topic.labels, want.labels, want.title);
        assert.equal(topic.author, want.author);
        assert.equal(topic.due_date, want.due && new Date(want.due).toISOString());
        assert.deepEqual(
          topic.comments.map((comment: { text: string }) => comment.text),
          want.comments,
          `${want.title}: comments`,
        );
      }
      // A selected part makes an annotation, a camera alone a saved view, no viewpoint an unpinned note.
      const count = (kind: string) => [...became.values()].filter((value) => value === kind).length;
      assert.deepEqual([count('annotation'), count('view'), count('note')], [1, 16, 4]);
      const byTitle = (title: string) => topics.find((topic: { title: string }) => topic.title === title);
      const due = byTitle('Issue that needs to be fixed by a certain date');
      assert.deepEqual(
        [due.due_date, due.assigned_to, due.view_id],
        ['2021-03-15T11:00:00.000Z', 'Architect@example.com', null],
      );
      assert.equal(byTitle('Milestone').stage, 'February');
      assert.equal(byTitle('Milestone').description, 'This topic has a milestone');

      // The curtain wall (an IfcCurtainWall aggregate, no part itself) stands for its plates and members.
      const parts = (await catalogApi(testApp.app, testApp.auth).call('GET', `/${first}/parts?limit=1000`))
        .json.data as { group_id: string; path: string }[];
      const curtainWall = parts.filter((part) => part.path.endsWith('/Facade_Path'));
      assert.ok(curtainWall.length > 1, 'the curtain wall has parts under it');
      const views = (await call('GET', `/${first}/views`, writer)).json.data;
      const wallView = views.find(
        (view: { id: string }) => view.id === byTitle('All components of curtain wall visible').view_id,
      );
      assert.deepEqual([...wallView.isolated].sort(), curtainWall.map((part) => part.group_id).sort());
      // A visible space stands for what it contains.
      const spaceView = views.find(
        (view: { id: string }) => view.id === byTitle('Single visible space').view_id,
      );
      const groupIds = new Set(parts.map((part) => part.group_id));
      assert.ok(spaceView.isolated.length > 1);
      assert.ok(spaceView.isolated.every((id: string) => groupIds.has(id)));
    });

    void it('exports the topics valid against the BCF 3.0 schemas, and imports them into another upload as the same topics', async (t) => {
      const [first, second] = ids as [string, string];
      const exported = await exportBcf(first);
      const { validator, complaints } = await bcfZipComplaints(exported);
      t.diagnostic(`validated with ${validator}`);
      assert.equal(complaints, '');
      const answer = await importBcf(second, exported);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(
        [answer.json.data.imported, answer.json.data.views, answer.json.data.notes, answer.json.data.skipped],
        [1, 16, 4, 0],
      );
      const byTitle = (list: { title: string }[]) =>
        list.map(comparable).sort((a, b) => String(a.title).localeCompare(String(b.title)));
      const original = (await call('GET', `/${first}/topics`, writer)).json.data;
      const copy = (await call('GET', `/${second}/topics`, writer)).json.data;
      assert.deepEqual(byTitle(copy), byTitle(original));
      const [before, after] = await Promise.all(
        [first, second].map(async (id) => (await call('GET', `/${id}/views`, writer)).json.data),
      );
      const visibility = (list: { name: string; hidden: string[]; isolated: string[] }[]) =>
        list
          .map(({ name, hidden, isolated }) => ({ name, hidden, isolated }))
          .sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(visibility(after), visibility(before));
    });

    void it('exports a pinned part by its GlobalId and imports it onto the same part of another upload', async () => {
      const [first, second] = ids as [string, string];
      const parts = (await catalogApi(testApp.app, testApp.auth).call('GET', `/${first}/parts`)).json
        .data as {
        group_id: string;
        bounds: { min: number[]; max: number[] };
      }[];
      const beam = parts[0]!;
      assert.match(beam.group_id, /^[0-9A-Za-z_$]{22}$/, 'IFC parts keep their GlobalId');
      assert.ok(sample(IFC).toString('latin1').includes(`'${beam.group_id}'`), 'the GlobalId is in the file');
      const top = [beam.bounds.min[0]!, beam.bounds.max[1]!, beam.bounds.min[2]!];
      const note = await call('POST', `/${first}/annotations`, writer, {
        group_id: beam.group_id,
        position: top,
        normal: [0, 1, 0],
        text: 'Beam notch too deep',
      });
      assert.equal(note.status, 201, note.text);

      const imported = await importBcf(second, await exportBcf(first));
      assert.equal(imported.status, 200, imported.text);
      // The 21 topics came over before; only the new annotation is new.
      assert.deepEqual(
        imported.json.data.topics.map(({ title, became }: { title: string; became: string }) => ({
          title,
          became,
        })),
        [{ title: 'Beam notch too deep', became: 'annotation' }],
      );
      assert.equal(imported.json.data.skipped, 21);
      const copy = (await call('GET', `/${second}/annotations`, writer)).json.data.find(
        (annotation: { text: string }) => annotation.text === 'Beam notch too deep',
      );
      assert.equal(copy.group_id, beam.group_id);
      assert.deepEqual(copy.position, top);
      assert.equal(copy.author, 'Structural check');
    });
  });
}
