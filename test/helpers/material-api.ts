import type { FastifyInstance } from 'fastify';

/** What one call to the material API answered: status, raw body (for byte-exact checks) and the parsed JSON. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  // Tests assert on the shape, so the parsed body stays loosely typed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** A material as the API returns it, with the fields the tests read. */
export interface MaterialJson {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

/** ISO 8601 UTC with milliseconds, the form every timestamp of the material service takes. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Calls the material API through `app.inject` with the token; `body` is sent as JSON unless it is already a string. */
export function materialApi(app: FastifyInstance, auth: Record<string, string>) {
  const call = async (method: string, url: string, body?: unknown): Promise<ApiAnswer> => {
    const hasBody = body !== undefined;
    const response = await app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: hasBody ? { ...auth, 'content-type': 'application/json' } : auth,
      payload: hasBody ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
    });
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text: response.body, json };
  };
  return {
    call,
    /** Creates a material and returns it, failing loudly when the API refuses. */
    async create(body: Record<string, unknown>): Promise<MaterialJson> {
      const answer = await call('POST', '/materials', body);
      if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${answer.text}`);
      return answer.json.data as MaterialJson;
    },
    /** Binds groups to a material, failing loudly when the API refuses. */
    async bind(id: number, groupIds: string[]): Promise<void> {
      const answer = await call('POST', `/materials/${id}/bindings`, { group_ids: groupIds });
      if (answer.status !== 200) throw new Error(`bind answered ${answer.status}: ${answer.text}`);
    },
    /** Every group id of a material, across all pages. */
    async allGroups(id: number): Promise<string[]> {
      const groups: string[] = [];
      for (let page = 1; ; page++) {
        const answer = await call('GET', `/materials/${id}/groups?page=${page}&page_size=100`);
        if (answer.status !== 200) throw new Error(`groups answered ${answer.status}: ${answer.text}`);
        groups.push(...(answer.json.data.items as string[]));
        if (groups.length >= answer.json.data.total) return groups;
      }
    },
  };
}

/** The JSON text of an error body the material API answers with. */
export function errorText(code: number, message: string): string {
  return JSON.stringify({ code, message });
}
