import { Type, type Static } from '@sinclair/typebox';

/** The scopes a token can be created with; the configured API_TOKEN is the only admin token. */
export const TOKEN_SCOPES = ['read', 'write'] as const;
/** One of {@link TOKEN_SCOPES}. */
export type TokenScopeName = (typeof TOKEN_SCOPES)[number];

/** Longest token name, after trimming. */
export const MAX_TOKEN_NAME_LENGTH = 255;

/** A scoped token as listed: never its secret. */
export const ApiTokenSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  scope: Type.Union(TOKEN_SCOPES.map((scope) => Type.Literal(scope))),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the token stops working; null for never.',
  }),
  created_at: Type.String({ format: 'date-time' }),
});
/** A scoped token on the wire. */
export type ApiToken = Static<typeof ApiTokenSchema>;

/** A token just created: the only answer that carries its secret. */
export const CreatedTokenSchema = Type.Intersect([
  ApiTokenSchema,
  Type.Object({ token: Type.String({ description: 'The secret for `X-API-Token`; shown this once.' }) }),
]);

/** What `GET /api/tokens/current` tells the caller about its own token, so a client can offer only what it may do. */
export const CurrentTokenSchema = Type.Object({
  scope: Type.Union([Type.Literal('admin'), ...TOKEN_SCOPES.map((scope) => Type.Literal(scope))], {
    description: "`admin` for the configured API_TOKEN; otherwise the scoped token's scope.",
  }),
  id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: "The scoped token's id; null for admin.",
  }),
  name: Type.Union([Type.String(), Type.Null()], { description: "The scoped token's name; null for admin." }),
});

/** Body of `POST /api/tokens`. */
export const CreateTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 1024 }),
  // A plain enum (not a union of literals) so the validation message lists the choices.
  scope: Type.Unsafe<TokenScopeName>({ type: 'string', enum: [...TOKEN_SCOPES] }),
  expires_at: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'ISO 8601 with a time zone, in the future; absent or null for never.',
    }),
  ),
});

/** Path parameters of `DELETE /api/tokens/:id`. */
export const TokenIdParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid token id' }),
});
