// The catalog-style API family, shared by every API that answers in the model catalog's envelopes: the model
// catalog itself, uploads, sharing, tokens, webhooks and the event stream.
import { Type, type TSchema } from '@sinclair/typebox';

/** The catalog's error body. */
export const CatalogErrorSchema = Type.Object({ success: Type.Literal(false), error: Type.String() });

/** Wraps a payload in the catalog's success envelope. */
export function catalogEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

/** The catalog's success envelope carrying only a message. */
export const CatalogMessageSchema = Type.Object({ success: Type.Literal(true), message: Type.String() });

/** How the catalog family answers errors, for `installApiFamily` (with the plugin's own `checkToken`). */
export const CATALOG_FAMILY = {
  errorBody: (_status: number, error: string) => ({ success: false, error }),
  internalMessage: 'Internal server error',
  notFoundMessage: 'Not found',
};
