import { errorCodes } from 'fastify';

/** Reads a request body in full, refusing more than `limit` bytes the way Fastify's own parser does (413). */
export async function bufferBody(
  payload: AsyncIterable<Buffer>,
  declaredLength: string | undefined,
  limit: number,
): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > limit) {
    throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of payload) {
    length += chunk.length;
    if (length > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}
