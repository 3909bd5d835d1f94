import path from 'node:path';

/** Files on local disk under `root`, served by the app at `/files/`. */
export interface FileStorageSettings {
  kind: 'file';
  root: string;
}

/** Files in an S3 bucket (AWS or any S3-compatible server), handed to clients as presigned GETs. */
export interface S3StorageSettings {
  kind: 's3';
  bucket: string;
  /** Prepended to every key: empty, or ending in `/`. */
  prefix: string;
  /** `S3_ENDPOINT`, for servers other than AWS (MinIO, Ceph, R2…); undefined for AWS itself. */
  endpoint: string | undefined;
  /** `S3_REGION` or `AWS_REGION`; `us-east-1` with an endpoint; else left to the SDK's chain (~/.aws/config). */
  region: string | undefined;
  /** Bucket in the path instead of the host name; default on with an endpoint, where most servers need it. */
  forcePathStyle: boolean;
  /** Life of a presigned URL (`S3_URL_EXPIRES_SECONDS`). */
  urlExpiresSeconds: number;
}

/** Where stored files live, as `STORAGE_URL` and the `S3_*` variables say. */
export type StorageSettings = FileStorageSettings | S3StorageSettings;

/** Default life of a presigned URL: long enough to start any download, short enough to leak little. */
export const DEFAULT_URL_EXPIRES_SECONDS = 3600;
// SigV4 presigned URLs cannot live longer than seven days.
const MAX_URL_EXPIRES_SECONDS = 7 * 24 * 3600;
// S3's bucket naming rules (lower case, digits, dots and hyphens, 3–63 characters, letters or digits at the ends).
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads `STORAGE_URL` (`file:<folder>` or `s3://bucket/prefix`) and, for S3, `S3_ENDPOINT`, `S3_REGION`,
 * `S3_FORCE_PATH_STYLE` and `S3_URL_EXPIRES_SECONDS`. Each unusable value adds a problem naming its variable.
 */
export function parseStorageSettings(
  storageUrl: string,
  env: NodeJS.ProcessEnv,
  problems: string[],
): StorageSettings {
  if (storageUrl.startsWith('file:')) return { kind: 'file', root: path.resolve(storageUrl.slice(5)) };
  if (!storageUrl.startsWith('s3://')) {
    problems.push('STORAGE_URL must be file:<folder> or s3://bucket/prefix');
    return { kind: 'file', root: path.resolve('files') };
  }
  const text = (name: string): string | undefined => env[name]?.trim() || undefined;
  const [bucket = '', ...rest] = storageUrl.slice('s3://'.length).split('/');
  if (!BUCKET_NAME.test(bucket)) {
    problems.push(`STORAGE_URL must name a valid bucket: s3://bucket/prefix (got "${bucket}")`);
  }
  const prefixPath = rest.filter((segment) => segment !== '').join('/');
  if (rest.some((segment) => segment === '.' || segment === '..')) {
    problems.push('STORAGE_URL prefix must not hold "." or ".." segments');
  }

  const endpoint = text('S3_ENDPOINT')?.replace(/\/+$/, '');
  if (endpoint !== undefined && !isHttpUrl(endpoint)) {
    problems.push(`S3_ENDPOINT must be an http:// or https:// URL (got "${endpoint}")`);
  }
  const forcePathStyle = flag(text('S3_FORCE_PATH_STYLE'), endpoint !== undefined);
  if (forcePathStyle === undefined) problems.push('S3_FORCE_PATH_STYLE must be true or false');
  const expiresRaw = text('S3_URL_EXPIRES_SECONDS');
  const expires = expiresRaw === undefined ? DEFAULT_URL_EXPIRES_SECONDS : Number(expiresRaw);
  if (!Number.isInteger(expires) || expires < 60 || expires > MAX_URL_EXPIRES_SECONDS) {
    problems.push(
      `S3_URL_EXPIRES_SECONDS must be an integer between 60 and ${MAX_URL_EXPIRES_SECONDS} (got "${expiresRaw}")`,
    );
  }
  return {
    kind: 's3',
    bucket,
    prefix: prefixPath ? `${prefixPath}/` : '',
    endpoint,
    region: text('S3_REGION') ?? text('AWS_REGION') ?? (endpoint ? 'us-east-1' : undefined),
    forcePathStyle: forcePathStyle ?? false,
    urlExpiresSeconds: Number.isInteger(expires) ? expires : DEFAULT_URL_EXPIRES_SECONDS,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A boolean setting: true/false, 1/0, yes/no; `fallback` when unset, undefined when unreadable. */
function flag(raw: string | undefined, fallback: boolean): boolean | undefined {
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  return undefined;
}
