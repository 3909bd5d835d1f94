/** What the page's own token may do, asked once of `GET /api/tokens/current`. */
import type { Static } from '@sinclair/typebox';
import type { CurrentTokenSchema } from '../../../src/access/token-schemas.ts';
import { request } from './http.ts';

/** The caller's own token as the server describes it. */
export type CurrentToken = Static<typeof CurrentTokenSchema>;

/** The page's token: its scope, and for a scoped token its id and name. */
export async function currentToken(): Promise<CurrentToken> {
  const body = (await request('/api/tokens/current')) as { data: CurrentToken };
  return body.data;
}
