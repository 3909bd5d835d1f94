// The same served scene with its materials single-sided: the page's GLB responses are rewritten on their way in, so
// the viewer, its camera and its lights stay as they are and only glTF's `doubleSided` flag differs.
import type { Page } from 'playwright-core';

const GLB_HEADER = 12;
const CHUNK_HEADER = 8;
const JSON_CHUNK = 0x4e4f534a;

/** A GLB whose materials are all single-sided, with how many were double-sided before. */
export function withSingleSidedMaterials(glb: Buffer): { glb: Buffer; changed: number } {
  const jsonLength = glb.readUInt32LE(GLB_HEADER);
  if (glb.readUInt32LE(GLB_HEADER + 4) !== JSON_CHUNK)
    throw new Error('the GLB does not open with its JSON chunk');
  const jsonStart = GLB_HEADER + CHUNK_HEADER;
  const json = JSON.parse(glb.subarray(jsonStart, jsonStart + jsonLength).toString('utf8')) as {
    materials?: { doubleSided?: boolean }[];
  };
  let changed = 0;
  for (const material of json.materials ?? []) {
    if (material.doubleSided) changed += 1;
    material.doubleSided = false;
  }
  // The JSON chunk is padded with spaces to a multiple of 4 bytes; the chunks after it are kept byte for byte.
  const text = Buffer.from(JSON.stringify(json), 'utf8');
  const padded = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const rest = glb.subarray(jsonStart + jsonLength);
  const header = Buffer.alloc(GLB_HEADER + CHUNK_HEADER);
  glb.copy(header, 0, 0, 8);
  header.writeUInt32LE(header.length + padded.length + rest.length, 8);
  header.writeUInt32LE(padded.length, GLB_HEADER);
  header.writeUInt32LE(JSON_CHUNK, GLB_HEADER + 4);
  return { glb: Buffer.concat([header, padded, rest]), changed };
}

/**
 * Makes every GLB `page` loads single-sided from now on; returns a count of the double-sided materials turned
 * single-sided so far, so a test can tell the rewrite had something to undo.
 */
export async function forceSingleSided(page: Page): Promise<() => number> {
  let changed = 0;
  await page.route(
    (url) => url.pathname.endsWith('.glb'),
    async (route) => {
      const response = await route.fetch();
      const rewritten = withSingleSidedMaterials(await response.body());
      changed += rewritten.changed;
      await route.fulfill({ response, body: rewritten.glb });
    },
  );
  return () => changed;
}
