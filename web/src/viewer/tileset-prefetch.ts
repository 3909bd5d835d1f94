/**
 * Fetches a tileset's `tileset.json`, and its root tile the moment that arrives, as soon as a page knows the
 * tileset's address: while the rest of the page (its parts, its levels, the view and the tile renderer) is still
 * being built. The tile renderer then takes these replies instead of asking again ({@link takePrefetched}).
 *
 * Each step is marked in the page's performance timeline (`vitrine:tileset-requested`, `vitrine:tileset-arrived`,
 * `vitrine:root-tile-requested`, `vitrine:root-tile-arrived`), which the first-frame benchmark reports.
 */

/** Replies under way or arrived and not yet taken, by absolute address. */
const prefetched = new Map<string, Promise<Response>>();

/** The absolute form of `url`, the key the replies are kept under. */
function absolute(url: string): string {
  return new URL(url, location.href).toString();
}

/** Marks a step of the prefetch in the performance timeline. */
function mark(name: string): void {
  performance.mark(`vitrine:${name}`);
}

/** Settles once each prefetched tileset's text has been read (and its root tile asked for), by absolute address. */
const read = new Map<string, Promise<void>>();

/**
 * Starts fetching `tilesetUrl` and then its root tile's content, unless already started. The root tile's address
 * is resolved as the tile renderer resolves it (against the tileset's folder), so that it asks for the same one.
 * Returns a promise that settles (never rejects) once the tileset's reply has been read and the root tile asked
 * for: a page can hold long main-thread work back until then, so the root tile's request is not held up by it.
 */
export function prefetchTileset(tilesetUrl: string): Promise<void> {
  const key = absolute(tilesetUrl);
  const known = read.get(key);
  if (known && prefetched.has(key)) return known;
  mark('tileset-requested');
  const tileset = fetch(tilesetUrl).then(async (response) => {
    const text = await response.text();
    mark('tileset-arrived');
    if (response.ok) prefetchRootTile(tilesetUrl, text);
    // A body is read once: the renderer gets a reply of its own with the same text and headers.
    return new Response(text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  });
  keep(key, tileset);
  const settled = tileset.then(
    () => undefined,
    () => undefined,
  );
  read.set(key, settled);
  return settled;
}

/** Starts fetching the root tile's content named in the tileset's text, when it names one. */
function prefetchRootTile(tilesetUrl: string, text: string): void {
  let uri: unknown;
  try {
    uri = (JSON.parse(text) as { root?: { content?: { uri?: unknown } } }).root?.content?.uri;
  } catch {
    return; // The renderer reports a tileset it cannot read.
  }
  if (typeof uri !== 'string') return;
  // As the renderer does: the tileset's address without its last path segment, then the uri against that folder.
  const folder = absolute(tilesetUrl.replace(/\/[^/]*$/, ''));
  const url = new URL(uri, `${folder}/`).toString();
  if (prefetched.has(url)) return;
  mark('root-tile-requested');
  keep(
    url,
    fetch(url).then((response) => {
      mark('root-tile-arrived');
      return response;
    }),
  );
}

/** Keeps a reply for its taker; a failed one is dropped, so the taker fetches anew. */
function keep(key: string, reply: Promise<Response>): void {
  prefetched.set(key, reply);
  reply.catch(() => {
    if (prefetched.get(key) === reply) prefetched.delete(key);
  });
}

/**
 * The prefetched reply for `url`, handed over once (a body is read once), or undefined when none was fetched.
 * A prefetch that fails falls back to `fetch(url, init)`.
 */
export function takePrefetched(url: string, init?: RequestInit): Promise<Response> | undefined {
  const key = absolute(url);
  const reply = prefetched.get(key);
  if (!reply) return undefined;
  prefetched.delete(key);
  return reply.catch(() => fetch(url, init));
}
