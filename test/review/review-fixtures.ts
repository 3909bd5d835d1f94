import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { TestApp } from '../helpers/test-app.ts';

/** A JSON answer of `app.inject`. */
export interface Answer {
  status: number;
  text: string;
  // Tests read deep into answers whose shapes the assertions check.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Calls `/api/models…` with a token and an optional JSON body. */
export function reviewApi(app: FastifyInstance) {
  return async (method: string, url: string, token: string, body?: unknown): Promise<Answer> => {
    const response = await app.inject({
      method: method as 'GET',
      url: `/api/models${url}`,
      headers:
        body === undefined
          ? { 'x-api-token': token }
          : { 'x-api-token': token, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, text: response.body, json };
  };
}

/** Creates a scoped token with the admin token and returns its secret. */
export async function scopedToken(testApp: TestApp, name: string, scope: 'read' | 'write'): Promise<string> {
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: testApp.auth,
    payload: { name, scope },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().data.token as string;
}

/** A saved view's body, with the group ids given hidden. */
export function viewBody(hidden: string[] = [], isolated: string[] = []) {
  return {
    name: 'From the north-east',
    camera: { position: [4.5, 3.25, -6], target: [0.5, 0.25, 0], up: [0, 1, 0], fov: 45 },
    hidden,
    isolated,
    sections: [{ normal: [0, -1, 0], constant: 2.5 }],
    xray: true,
    level: 1,
  };
}

/** The types of the events recorded so far that concern the model, oldest first. */
export async function eventTypes(testApp: TestApp, modelId: string): Promise<string[]> {
  const rows = await testApp.database.db
    .selectFrom('events')
    .select(['type'])
    .where('model_id', '=', modelId)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.type);
}
