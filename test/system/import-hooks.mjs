// Module resolution hooks of record-imports.mjs: append each resolved URL to VITRINE_IMPORT_LOG.
import { appendFileSync } from 'node:fs';
import process from 'node:process';

/** Resolves as usual, then records the result. */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.VITRINE_IMPORT_LOG, `${resolved.url}\n`);
  return resolved;
}
