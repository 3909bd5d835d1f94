// Scoped tokens against every route the OpenAPI document lists: a read token reads and is refused every write, a
// write token does all but token management, and revoked or expired tokens are refused everywhere.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { secretDigest } from '../../src/http/auth/secrets.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { errorText, materialApi } from '../helpers/material-api.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { UPLOAD_TYPES_MESSAGE } from '../../src/catalog/intake/upload-content-types.ts';
import { documentedApiRoutes, fillPath, type DocumentedRoute } from '../helpers/openapi-routes.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

/** The routes a read token may call besides every GET. */
const READING_POSTS = ['POST /api/v1/groups/materials'];
/** GETs a read token is refused, and why: share links' URLs carry their secrets. */
const WRITE_LEVEL_GETS = new Map([['GET /api/models/{id}/shares', 'share links need a write token']]);

for (const dialect of testDialects()) {
  void describe(`scoped tokens (${dialect})`, () => {
    let testApp: TestApp;
    let routes: DocumentedRoute[];
    const ids: {
      model: string;
      material: string;
      token: string;
      group: string;
      share: string;
      webhook: string;
      view: string;
      configuration: string;
    } = {
      view: '',
      configuration: '',
      webhook: '',
      model: '',
      material: '',
      token: '',
      group: '',
      share: '',
    };

    before(async () => {
      // Its webhook points at loopback, which only an opt-in allows.
      testApp = await createTestApp(dialect, { WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'false' });
      testApp.startJobRunner();
      const model = await catalogApi(testApp.app, testApp.auth).create('two.glb', await twoPartGlb('shared'));
      await waitForStatus(testApp.app, model.id, ['completed']);
      const material = await materialApi(testApp.app, testApp.auth).create({ name: 'Red' });
      const token = await createToken({ name: 'spare', scope: 'read' });
      Object.assign(ids, {
        model: model.id,
        material: String(material.id),
        token: token.id,
        group: 'shared',
      });
      const webhook = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: testApp.auth,
        payload: { url: 'http://127.0.0.1:9/hook', events: ['model.deleted'] },
      });
      ids.webhook = webhook.json().data.id;
      const view = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${model.id}/views`,
        headers: testApp.auth,
        payload: {
          name: 'Front',
          camera: { position: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fov: 50 },
          hidden: [],
          isolated: [],
          sections: [],
          xray: false,
          level: 0,
        },
      });
      ids.view = view.json().data.id;
      const configuration = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${model.id}/configurations`,
        headers: testApp.auth,
        payload: { name: 'Finish A', from: 'current' },
      });
      assert.equal(configuration.statusCode, 201, configuration.body);
      ids.configuration = configuration.json().data.id;
      routes = await documentedApiRoutes(testApp.app);
    });
    after(() => testApp.close());

    const send = async (method: string, url: string, token: string, body?: object, streams = false) => {
      const response = await testApp.app.inject({
        method: method as 'GET',
        url,
        headers: body
          ? { 'x-api-token': token, 'content-type': 'application/json' }
          : { 'x-api-token': token },
        payload: body ? JSON.stringify(body) : undefined,
        // An event stream answers its headers and never ends; its status is what access decides.
        payloadAsStream: streams,
      });
      if (streams && response.statusCode === 200) {
        response.stream().destroy();
        return { status: response.statusCode, text: '', json: undefined };
      }
      const text = streams ? await streamText(response.stream()) : response.body;
      return { status: response.statusCode, text, json: safeJson(text) };
    };

    async function createToken(body: object) {
      const answer = await send('POST', '/api/tokens', testApp.auth['x-api-token']!, body);
      assert.equal(answer.status, 201, answer.text);
      return answer.json.data as { id: string; token: string; scope: string; expires_at: string | null };
    }

    /** A concrete URL for a documented route, with ids that exist (or, with `missing`, ids that do not). */
    const urlOf = (route: DocumentedRoute, missing = false): string => {
      const id = route.path.startsWith('/api/v1/')
        ? missing
          ? '999999'
          : ids.material
        : route.path.startsWith('/api/tokens')
          ? missing
            ? randomUUID()
            : ids.token
          : route.path.startsWith('/api/webhooks')
            ? missing
              ? randomUUID()
              : ids.webhook
            : missing
              ? randomUUID()
              : ids.model;
      return fillPath(route.path, {
        id,
        level: '0',
        share_id: missing ? randomUUID() : ids.share,
        delivery_id: '1',
        view_id: missing ? randomUUID() : ids.view,
        cid: missing ? randomUUID() : ids.configuration,
        annotation_id: randomUUID(),
        group_id: ids.group,
        n: '1',
        a: '1',
        b: '1',
      });
    };
    const isRead = (route: DocumentedRoute) =>
      (route.method === 'GET' && !WRITE_LEVEL_GETS.has(`${route.method} ${route.path}`)) ||
      READING_POSTS.includes(`${route.method} ${route.path}`);
    // Every token may ask what it may do itself; the rest of `/api/tokens` is the admin token's.
    const isTokenManagement = (route: DocumentedRoute) =>
      route.path.startsWith('/api/tokens') && route.path !== '/api/tokens/current';
    const refusal = (route: DocumentedRoute, status: number, message: string) =>
      route.path.startsWith('/api/v1/') ? errorText(status, message) : catalogError(message);
    const bodyFor = (route: DocumentedRoute) =>
      READING_POSTS.includes(`${route.method} ${route.path}`)
        ? { group_ids: [ids.group], include_default: true }
        : undefined;

    void it('finds the routes of both APIs and token management in the OpenAPI document', () => {
      const names = routes.map((route) => `${route.method} ${route.path}`);
      for (const expected of [
        'GET /api/models',
        'DELETE /api/models/{id}',
        'POST /api/v1/materials',
        'POST /api/v1/groups/materials',
        'POST /api/tokens',
        'GET /api/tokens',
        'DELETE /api/tokens/{id}',
        'GET /api/tokens/current',
      ]) {
        assert.ok(names.includes(expected), `${expected} is documented`);
      }
      assert.ok(routes.length >= 20, `${routes.length} routes documented`);
    });

    void it('lets a read token call every read (2xx) and refuses every write with 403 in its envelope', async () => {
      const { token } = await createToken({ name: 'viewer', scope: 'read' });
      let reads = 0;
      let writes = 0;
      for (const route of routes) {
        const answer = await send(route.method, urlOf(route), token, bodyFor(route), route.streams);
        const label = `${route.method} ${route.path}: ${answer.text.slice(0, 200)}`;
        const writeLevel = WRITE_LEVEL_GETS.get(`${route.method} ${route.path}`);
        if (isTokenManagement(route)) {
          assert.equal(answer.status, 403, label);
          assert.equal(answer.text, catalogError('token management needs the admin token'), label);
        } else if (writeLevel !== undefined) {
          assert.equal(answer.status, 403, label);
          assert.equal(answer.text, catalogError(writeLevel), label);
        } else if (isRead(route)) {
          assert.ok(answer.status >= 200 && answer.status < 300, label);
          reads += 1;
        } else {
          assert.equal(answer.status, 403, label);
          assert.equal(answer.text, refusal(route, 403, 'token is read-only'), label);
          writes += 1;
        }
      }
      assert.ok(reads >= 8 && writes >= 10, `${reads} reads, ${writes} writes`);
      // The refusals changed nothing.
      const model = await send('GET', `/api/models/${ids.model}`, testApp.auth['x-api-token']!);
      assert.equal(model.status, 200);
    });

    void it('lets a write token through every route but token management', async () => {
      const { token } = await createToken({ name: 'ci', scope: 'write' });
      for (const route of routes) {
        // Ids that do not exist, so the writes pass the access check and then find nothing to change.
        const answer = await send(route.method, urlOf(route, true), token, bodyFor(route), route.streams);
        const label = `${route.method} ${route.path}: ${answer.text.slice(0, 200)}`;
        if (isTokenManagement(route)) {
          assert.equal(answer.status, 403, label);
          assert.equal(answer.text, catalogError('token management needs the admin token'), label);
        } else {
          assert.ok(![401, 403, 500].includes(answer.status), label);
        }
      }
      const created = await send('POST', '/api/v1/materials', token, { name: 'By CI' });
      assert.equal(created.status, 201, created.text);
    });

    void it('tells every token its own scope, and a scoped token its id and name, at /api/tokens/current', async () => {
      const admin = await send('GET', '/api/tokens/current', testApp.auth['x-api-token']!);
      assert.equal(admin.status, 200, admin.text);
      assert.deepEqual(admin.json, { success: true, data: { scope: 'admin', id: null, name: null } });
      for (const scope of ['read', 'write'] as const) {
        const created = await createToken({ name: `${scope} self`, scope });
        const answer = await send('GET', '/api/tokens/current', created.token);
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual(answer.json, {
          success: true,
          data: { scope, id: created.id, name: `${scope} self` },
        });
        // Only reading is open: revoking through this path stays the admin token's.
        const revoke = await send('DELETE', '/api/tokens/current', created.token);
        assert.equal(revoke.status, 403, revoke.text);
      }
      const wrong = await send('GET', '/api/tokens/current', 'vt_not-a-real-token');
      assert.equal(wrong.status, 401, wrong.text);
    });

    void it('refuses a revoked token at once with 401 `invalid API token` on every route', async () => {
      const { id, token } = await createToken({ name: 'soon revoked', scope: 'write' });
      assert.equal((await send('GET', '/api/models', token)).status, 200);
      const revoked = await send('DELETE', `/api/tokens/${id}`, testApp.auth['x-api-token']!);
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.text, JSON.stringify({ success: true, message: 'Token revoked' }));
      for (const route of routes) {
        const answer = await send(route.method, urlOf(route), token, bodyFor(route), route.streams);
        const label = `${route.method} ${route.path}`;
        assert.equal(answer.status, 401, label);
        assert.equal(answer.text, refusal(route, 401, 'invalid API token'), label);
      }
    });

    void it('refuses an expired token with 401 `invalid API token` on every route', async () => {
      const expiresAt = new Date(Date.now() + 1_000).toISOString();
      const { token, expires_at } = await createToken({
        name: 'brief',
        scope: 'read',
        expires_at: expiresAt,
      });
      assert.equal(expires_at, expiresAt);
      assert.equal((await send('GET', '/api/models', token)).status, 200);
      await sleep(Date.parse(expiresAt) - Date.now() + 20);
      for (const route of routes) {
        const answer = await send(route.method, urlOf(route), token, bodyFor(route), route.streams);
        const label = `${route.method} ${route.path}`;
        assert.equal(answer.status, 401, label);
        assert.equal(answer.text, refusal(route, 401, 'invalid API token'), label);
      }
    });

    void it('shows a secret once, lists tokens without secrets and stores only digests', async () => {
      const created = await createToken({ name: '  Customer preview  ', scope: 'read' });
      assert.match(created.token, /^vt_[A-Za-z0-9_-]{43}$/);
      const list = await send('GET', '/api/tokens', testApp.auth['x-api-token']!);
      assert.equal(list.status, 200);
      const listed = (list.json.data as Record<string, unknown>[]).find((entry) => entry.id === created.id);
      assert.deepEqual(Object.keys(listed!).sort(), ['created_at', 'expires_at', 'id', 'name', 'scope']);
      assert.equal(listed!.name, 'Customer preview');
      assert.ok(!list.text.includes(created.token));
      const stored = await testApp.database.db
        .selectFrom('api_tokens')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.token_hash, secretDigest(created.token));
      assert.ok(!Object.values(stored).includes(created.token));
    });

    void it('refuses bad token requests with clear 400s and unknown ids with 404', async () => {
      const admin = testApp.auth['x-api-token']!;
      const cases: [object, string][] = [
        [{ scope: 'read' }, 'name is required'],
        [{ name: ' ', scope: 'read' }, 'name must be a string of 1 to 255 characters'],
        [{ name: 'x', scope: 'admin' }, 'scope must be one of read, write'],
        [{ name: 'x' }, 'scope is required'],
        [{ name: 'x', scope: 'read', expires_at: 'tomorrow' }, 'expires_at must be a valid date-time'],
        [
          { name: 'x', scope: 'read', expires_at: '2001-01-01T00:00:00Z' },
          'expires_at must be in the future',
        ],
      ];
      for (const [body, message] of cases) {
        const answer = await send('POST', '/api/tokens', admin, body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.text, catalogError(message), JSON.stringify(body));
      }
      const unknown = await send('DELETE', `/api/tokens/${randomUUID()}`, admin);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.text, catalogError('Token not found'));
      const malformed = await send('DELETE', '/api/tokens/nope', admin);
      assert.equal(malformed.status, 400);
      assert.equal(malformed.text, catalogError('Invalid token id'));
      const noToken = await send('GET', '/api/tokens', '');
      assert.equal(noToken.status, 401);
      assert.equal(noToken.text, catalogError('missing API token'));
      const elsewhere = await send('GET', '/api/tokens/nope/nothing', admin);
      assert.equal(elsewhere.status, 404);
      assert.equal(elsewhere.text, catalogError('Not found'));
    });

    void it('never shows a read token a share secret, and lets it start and download an export', async () => {
      const { token: reader } = await createToken({ name: 'looker', scope: 'read' });
      const { token: writer } = await createToken({ name: 'maker', scope: 'write' });
      const shareList = `/api/models/${ids.model}/shares`;
      const made = await send('POST', shareList, writer);
      assert.equal(made.status, 201, made.text);
      const secretUrl = made.json.data.url as string;
      const listed = await send('GET', shareList, reader);
      assert.equal(listed.status, 403);
      assert.equal(listed.text, catalogError('share links need a write token'));
      assert.ok(!listed.text.includes(secretUrl.split('/s/')[1]!));
      assert.equal((await send('GET', shareList, writer)).json.data[0].url, secretUrl);

      // An export is another form of what a read token reads: it starts one and downloads it.
      const exportUrl = `/api/models/${ids.model}/export?format=stl`;
      const started = await send('GET', exportUrl, reader);
      assert.equal(started.status, 202, started.text);
      assert.equal(started.json.data.status, 'queued');
      const deadline = Date.now() + 60_000;
      let fetched = await send('GET', exportUrl, reader);
      while (fetched.status === 202 && Date.now() < deadline) {
        await sleep(50);
        fetched = await send('GET', exportUrl, reader);
      }
      assert.equal(fetched.status, 200, fetched.text);
      assert.ok(Buffer.byteLength(fetched.text, 'latin1') >= 84, 'an STL file');
    });

    void it("answers an integer past its column's range in any path, query or body with a 4xx, never a 500", async () => {
      const admin = testApp.auth['x-api-token']!;
      const document = JSON.parse((await testApp.app.inject({ method: 'GET', url: '/docs/json' })).body);
      type Operation = {
        parameters?: { in: string; name: string; schema: unknown }[];
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
      };
      const isInteger = (schema: unknown) => JSON.stringify(schema ?? null).includes('"integer"');
      /** The route's URL with the path parameter `name` set to `value`. */
      const pathWith = (route: DocumentedRoute, name: string, value: string) => {
        const pattern = route.path.split('/');
        return urlOf(route)
          .split('/')
          .map((segment, i) => (pattern[i] === `{${name}}` ? value : segment))
          .join('/');
      };
      let checked = 0;
      for (const route of routes) {
        const operation = document.paths[route.path][route.method.toLowerCase()] as Operation;
        const inputs = (operation.parameters ?? []).filter((parameter) => isInteger(parameter.schema));
        const fields = Object.keys(
          operation.requestBody?.content?.['application/json']?.schema?.properties ?? {},
        );
        const bodyFields = fields.filter((name) =>
          isInteger(operation.requestBody!.content!['application/json']!.schema!.properties![name]),
        );
        // 2^31 is past PostgreSQL's integer (a version number); 2^53 and 1e20 past what a JSON number keeps exact.
        for (const value of [2 ** 31, 2 ** 53, 1e20]) {
          const text = BigInt(value).toString();
          const cases = [
            ...inputs.map((input) => ({
              what: `${input.in} ${input.name}`,
              url:
                input.in === 'path'
                  ? pathWith(route, input.name, text)
                  : `${urlOf(route)}?${input.name}=${text}`,
              body: undefined as object | undefined,
            })),
            ...bodyFields.map((name) => ({
              what: `body ${name}`,
              url: urlOf(route),
              body: { [name]: value },
            })),
          ];
          for (const one of cases) {
            const answer = await send(route.method, one.url, admin, one.body, route.streams);
            const label = `${route.method} ${route.path} ${one.what}=${text}: ${answer.text.slice(0, 200)}`;
            assert.ok(answer.status < 500, label);
            if (value > Number.MAX_SAFE_INTEGER) assert.ok(answer.status >= 400, label);
            checked += 1;
          }
        }
      }
      assert.ok(checked >= 30, `${checked} requests`);
    });

    // Last: the admin token's requests reach the routes themselves, and some (reprocess) change the model.
    void it('answers every body route sent the wrong content type, or none, with a 4xx and a message', async () => {
      const admin = testApp.auth['x-api-token']!;
      const form = multipartForm(
        { name: 'wrong' },
        { field: 'file', filename: 'a.txt', data: 'not a model' },
      );
      const wrongBodies: { label: string; headers: Record<string, string>; payload?: string | Buffer }[] = [
        { label: 'text/plain', headers: { 'content-type': 'text/plain' }, payload: 'hello' },
        { label: 'text/plain JSON', headers: { 'content-type': 'text/plain' }, payload: '{"upload_id":"x"}' },
        { label: 'multipart', headers: form.headers, payload: form.payload },
        { label: 'empty JSON', headers: { 'content-type': 'application/json' } },
        { label: 'JSON null', headers: { 'content-type': 'application/json' }, payload: 'null' },
        { label: 'JSON string', headers: { 'content-type': 'application/json' }, payload: '"upload"' },
        { label: 'octet-stream', headers: { 'content-type': 'application/octet-stream' }, payload: 'abc' },
        { label: 'no content type', headers: {}, payload: 'abc' },
        { label: 'empty', headers: {} },
      ];
      let checked = 0;
      for (const route of routes.filter((one) => ['POST', 'PUT', 'PATCH'].includes(one.method))) {
        for (const body of wrongBodies) {
          const answer = await testApp.app.inject({
            method: route.method as 'POST',
            url: urlOf(route),
            headers: { 'x-api-token': admin, ...body.headers },
            payload: body.payload,
          });
          const label = `${route.method} ${route.path} with ${body.label}: ${answer.body.slice(0, 200)}`;
          assert.ok(answer.statusCode < 500, label);
          if (answer.statusCode >= 400) assert.ok(safeJson(answer.body), label);
          checked += 1;
        }
      }
      assert.ok(checked >= 100, `${checked} requests`);
      // The upload routes name the types they take.
      for (const url of ['/api/models', `/api/models/${ids.model}/versions`]) {
        const plain = await testApp.app.inject({
          method: 'POST',
          url,
          headers: { 'x-api-token': admin, 'content-type': 'text/plain' },
          payload: 'hello',
        });
        assert.equal(plain.statusCode, 415, `${url}: ${plain.body}`);
        assert.equal(plain.body, catalogError(UPLOAD_TYPES_MESSAGE), url);
      }
    });

    void it('sends a read token on an unknown route to its 404, not a 403', async () => {
      const { token } = await createToken({ name: 'reader', scope: 'read' });
      const answer = await send('POST', '/api/v1/no-such-route', token);
      assert.equal(answer.status, 404);
      assert.equal(answer.text, errorText(404, 'not found'));
    });
  });
}

// Tests assert on the shape, so the parsed body stays loosely typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The whole text of a finite response stream. */
async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}
