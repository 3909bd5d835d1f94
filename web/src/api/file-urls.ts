/**
 * The file URLs the API hands out are signed and short-lived (`?expires=<unix seconds>&signature=…`); these
 * helpers tell a page when one it kept must be asked for again, and compare two URLs by the file they name.
 */

/** Time left below which a kept URL is asked for again rather than used. */
const MARGIN_MS = 60_000;

/** True when `url` is a signed URL that has expired or will within a minute; unsigned URLs never expire. */
export function expiresSoon(url: string, now = Date.now()): boolean {
  const expires = Number(new URL(url, location.href).searchParams.get('expires'));
  return Number.isFinite(expires) && expires > 0 && expires * 1000 - now < MARGIN_MS;
}

/** True when two file URLs name the same stored file, whatever their signatures (a new file has a new name). */
export function sameFile(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return new URL(a, location.href).pathname === new URL(b, location.href).pathname;
}
