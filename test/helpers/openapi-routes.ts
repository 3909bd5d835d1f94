import type { FastifyInstance } from 'fastify';

/** One operation of the OpenAPI document: upper-case method and the documented path (`/api/models/{id}`). */
export interface DocumentedRoute {
  method: string;
  path: string;
  /** True for a server-sent event stream, which never ends: inject it with `payloadAsStream`. */
  streams: boolean;
}

/** Every operation `/docs/json` documents under `/api/`, so access tests follow the routes as they grow. */
export async function documentedApiRoutes(app: FastifyInstance): Promise<DocumentedRoute[]> {
  const response = await app.inject({ method: 'GET', url: '/docs/json' });
  if (response.statusCode !== 200) throw new Error(`/docs/json answered ${response.statusCode}`);
  type Operation = { responses?: Record<string, { content?: Record<string, unknown> }> };
  const paths = JSON.parse(response.body).paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths)
    .filter(([path]) => path.startsWith('/api/'))
    .flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({
          method: method.toUpperCase(),
          path,
          streams: Object.keys(methods[method]?.responses?.['200']?.content ?? {}).includes(
            'text/event-stream',
          ),
        })),
    );
}

/** Fills `{name}` placeholders of a documented path; a placeholder without a value fails the test loudly. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no test value for {${name}} in ${path}`);
    return encodeURIComponent(value);
  });
}
