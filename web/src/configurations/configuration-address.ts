/**
 * The address names the configuration shown: `#/models/<id>?configuration=<cid>`, read when the model opens and
 * rewritten in place on each switch, so a copied link opens the same paint and the back button is not filled with
 * switches.
 */

const PARAMETER = 'configuration';

/** Splits a hash into its route path and its query. */
function splitHash(hash: string): { path: string; query: URLSearchParams } {
  const bare = hash.replace(/^#/, '');
  const at = bare.indexOf('?');
  return {
    path: at < 0 ? bare : bare.slice(0, at),
    query: new URLSearchParams(at < 0 ? '' : bare.slice(at + 1)),
  };
}

/** The configuration the address names, or null. */
export function addressedConfiguration(hash = location.hash): string | null {
  return splitHash(hash).query.get(PARAMETER) || null;
}

/** `hash` naming configuration `id` (null: none), its other parameters kept. */
export function hashWithConfiguration(hash: string, id: string | null): string {
  const { path, query } = splitHash(hash);
  if (id) query.set(PARAMETER, id);
  else query.delete(PARAMETER);
  const text = query.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

/**
 * Rewrites the address of model `modelId`'s page to name configuration `id` (null: none) without a new history
 * entry or a hash change; nothing when the address has moved to another page meanwhile (its hashchange not yet
 * handled), which a late rewrite would send back.
 */
export function showInAddress(modelId: string, id: string | null): void {
  if (splitHash(location.hash).path !== `/models/${modelId}`) return;
  const hash = hashWithConfiguration(location.hash, id);
  if (hash !== location.hash) history.replaceState(history.state, '', hash);
}
