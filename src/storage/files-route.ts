/** Route prefix under which the app answers for stored files, whichever the store. */
export const FILES_ROUTE_PREFIX = '/files/';

/**
 * The stable address of a stored file: the app serves it there (file store) or redirects to a fresh presigned
 * URL (S3), so handed-out URLs never expire and never depend on where the bytes are.
 */
export function filesRouteUrl(key: string, baseUrl: string): string {
  return `${baseUrl}${FILES_ROUTE_PREFIX}${key.split('/').map(encodeURIComponent).join('/')}`;
}
